// Package lease keeps one redrive at a time on a DLQ: a run holds the
// queue's tag mfdlq-lease (who, where, until when), renews it while it
// lives, and gives it back at the end; a second run sees the holder and
// stops, or takes over a dead one's. Tags are last-writer-wins, so the
// lease reads its tag back after Settle: two runs that wrote at the same
// moment both see the one that won — a heuristic, since SQS documents no
// read-after-write for tags. Where the operator has a bucket, the lease is
// an S3 object written conditionally instead (s3.go: If-None-Match to
// create, If-Match to renew and delete), which is a real compare-and-swap.
// Both kinds are a Store.
package lease

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/tagvalue"
)

// Tags is the SQS tag calls of the lease, with the SDK's signatures.
type Tags interface {
	TagQueue(ctx context.Context, in *sqs.TagQueueInput, optFns ...func(*sqs.Options)) (*sqs.TagQueueOutput, error)
	UntagQueue(ctx context.Context, in *sqs.UntagQueueInput, optFns ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error)
	ListQueueTags(ctx context.Context, in *sqs.ListQueueTagsInput, optFns ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error)
}

var _ Tags = (sqsapi.Client)(nil)

// Tag is the DLQ's tag that names the redrive holding it. A queue
// tag is the one piece of shared state every operator's mfdlq can read and
// write with nothing but the queue: two people redriving one DLQ from two
// laptops duplicate messages (issue 12 measured 10 of 30).
const Tag = "mfdlq-lease"

// Lease timings: a run renews its lease every TTL/4 while it lives,
// so a holder that died frees the DLQ after at most TTL. Settle
// is how long a writer waits before it reads its tag back: a second
// writer that read "free" at the same moment has written by then, and the
// last writer wins.
const (
	TTL    = 2 * time.Minute
	Settle = time.Second
)

// Holder is who holds a lease: the tag's value.
type Holder struct {
	Operator string    `json:"operator"`
	Host     string    `json:"host"`
	PID      int       `json:"pid"`
	Run      string    `json:"run"`
	Since    time.Time `json:"since"`
	Expires  time.Time `json:"expires"`
	// Waiting names the alarms the run waits on before its move or in a
	// pause of it (redrive --when-ok: "gateway-5xx+2" for three), "" when
	// it waits on nothing: a colleague's redrive is told the run is alive
	// and waiting, not stuck.
	Waiting string `json:"waiting,omitempty"`
}

// String is the tag value: key=value words, in the characters SQS allows
// in a tag (letters, digits, spaces and _ . / = + - : @).
func (h Holder) String() string {
	s := fmt.Sprintf("operator=%s host=%s pid=%d run=%s since=%s expires=%s", tagSafe(h.Operator), tagSafe(h.Host), h.PID,
		tagSafe(h.Run), h.Since.UTC().Format(time.RFC3339), h.Expires.UTC().Format(time.RFC3339))
	if h.Waiting != "" {
		s += " waiting=" + tagSafe(h.Waiting)
	}
	return s
}

// Minimum lengths fit leaves a shortened word: enough to tell a colleague
// who and what.
const (
	minWaiting  = 8
	minOperator = 8
	minHost     = 16
)

// fit shortens h's words until String holds at most tagvalue.MaxLen
// characters (TagQueue refuses a longer value: a long host, operator and
// --when-ok alarm reach ~290): first the alarm it waits on (keeping its
// "+N"), then the operator, then — never reached with a pid of ten
// digits — the host. The run id, the pid and the times, which ParseHolder
// and Same need, are never cut. The lease writes and compares the fitted
// holder, so the tag read back is the same run.
func (h Holder) fit() Holder {
	cut := func(w *string, floor int, keepSuffix bool) {
		over := len(h.String()) - tagvalue.MaxLen
		if over <= 0 || len(*w) <= floor {
			return
		}
		n := max(floor, len(*w)-over)
		suffix := ""
		if i := strings.LastIndexByte(*w, '+'); keepSuffix && i > 0 && len(*w)-i < n {
			suffix = (*w)[i:]
		}
		*w = (*w)[:n-len(suffix)] + suffix
	}
	cut(&h.Waiting, minWaiting, true)
	cut(&h.Operator, minOperator, false)
	cut(&h.Host, minHost, false)
	return h
}

// Describe names the holder for a person: who, where, since when.
func (h Holder) Describe() string {
	return fmt.Sprintf("%s on %s (pid %d, run %s) since %s, lease until %s", h.Operator, h.Host, h.PID, h.Run,
		h.Since.UTC().Format("2006-01-02 15:04:05 UTC"), h.Expires.UTC().Format("15:04:05 UTC")) + h.waitingText()
}

// waitingText is ", waiting on alarms gateway-5xx+2" for a waiting run.
func (h Holder) waitingText() string {
	if h.Waiting == "" {
		return ""
	}
	return ", waiting on alarms " + h.Waiting
}

// WaitingOn is the Waiting word for alarms: the first name and how many
// more ("gateway-5xx+2"), "" for none. The name is made tag-safe and cut
// here, before the count, so that the count survives a long name (an
// alarm's name holds up to 255 characters; the tag's words 48) and fit
// measures the word the tag holds.
func WaitingOn(alarms []string) string {
	switch len(alarms) {
	case 0:
		return ""
	case 1:
		return tagSafe(alarms[0])
	}
	more := fmt.Sprintf("+%d", len(alarms)-1)
	return tagvalue.Safe(alarms[0], maxWord-len(more)) + more
}

// same tells whether h and o are one run.
// Same says h and o are one run: its id, host and process.
func (h Holder) Same(o Holder) bool { return h.same(o) }

func (h Holder) same(o Holder) bool {
	return h.Run == o.Run && h.Host == o.Host && h.PID == o.PID
}

// ParseHolder reads a tag value; ok is false when it is not one.
func ParseHolder(v string) (Holder, bool) {
	var h Holder
	for _, w := range strings.Fields(v) {
		k, val, _ := strings.Cut(w, "=")
		switch k {
		case "operator":
			h.Operator = val
		case "host":
			h.Host = val
		case "pid":
			h.PID, _ = strconv.Atoi(val)
		case "run":
			h.Run = val
		case "since":
			h.Since, _ = time.Parse(time.RFC3339, val)
		case "expires":
			h.Expires, _ = time.Parse(time.RFC3339, val)
		case "waiting":
			h.Waiting = val
		}
	}
	return h, h.Run != "" && !h.Expires.IsZero()
}

// tagSafe is a holder's word in the tag: tagvalue.Safe, the codec the
// DLQ's note shares (its words at most 48 bytes).
func tagSafe(s string) string { return tagvalue.Safe(s, maxWord) }

// maxWord is the most bytes of one word of the holder in the tag.
const maxWord = 48

// HeldError is a lease another live run holds.
type HeldError struct {
	Holder Holder
	// Race is true when the other run wrote its tag just after this one.
	Race bool
}

func (e *HeldError) Error() string { return "held by " + e.Holder.Describe() }

// ErrNoTagging is returned when the role may not read or write the DLQ's
// tags (or the server does not have them): the caller warns and runs
// without a lease.
var ErrNoTagging = errors.New("the DLQ's tags cannot be read or written")

// Lease is a held lease on a DLQ.
type Lease struct {
	c   Tags
	url string
	me  Holder
	now func() time.Time

	mu sync.Mutex
	renewals
}

// CurrentHolder reads the DLQ's lease tag; ok is false when none is set.
func CurrentHolder(ctx context.Context, c Tags, url string) (Holder, bool, error) {
	out, err := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
	if err != nil {
		return Holder{}, false, tagErr(err)
	}
	v, ok := out.Tags[Tag]
	if !ok {
		return Holder{}, false, nil
	}
	h, ok := ParseHolder(v)
	return h, ok, nil
}

// Live tells whether h still holds its lease at now: not expired, and not
// a run on this host whose process is gone (a SIGKILL leaves its tag).
func Live(h Holder, now time.Time) bool {
	if !now.Before(h.Expires) {
		return false
	}
	if host, _ := os.Hostname(); h.Host == tagSafe(host) && h.PID > 0 && h.PID != os.Getpid() {
		return processAlive(h.PID)
	}
	return true
}

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Me is the holder this process would be for run.
func Me(operator, run string, now time.Time) Holder {
	host, _ := os.Hostname()
	return Holder{Operator: tagSafe(operator), Host: tagSafe(host), PID: os.Getpid(), Run: tagSafe(run), Since: now.UTC().Truncate(time.Second), Expires: now.Add(TTL).UTC().Truncate(time.Second)}.fit()
}

// Acquire takes the lease on the DLQ at url for me: it refuses (a
// *HeldError) when another live run holds it, unless takeOver; it writes
// the tag, waits Settle and reads it back, so of two runs that
// started together exactly one goes on. ErrNoTagging means the tags are
// out of reach.
func Acquire(ctx context.Context, c Tags, url string, me Holder, takeOver bool, now func() time.Time) (*Lease, error) {
	cur, ok, err := CurrentHolder(ctx, c, url)
	if err != nil {
		return nil, err
	}
	if ok && !cur.same(me) && Live(cur, now()) && !takeOver {
		return nil, &HeldError{Holder: cur}
	}
	l := &Lease{c: c, url: url, me: me, now: now}
	if err := l.write(ctx); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(Settle):
	}
	back, ok, err := CurrentHolder(ctx, c, url)
	if err != nil {
		return nil, err
	}
	if !ok || !back.same(me) {
		return nil, &HeldError{Holder: back, Race: true}
	}
	return l, nil
}

func (l *Lease) write(ctx context.Context) error {
	l.mu.Lock()
	l.me = l.me.fit()
	v := l.me.String()
	l.mu.Unlock()
	_, err := l.c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(l.url), Tags: map[string]string{Tag: v}})
	return tagErr(err)
}

// SetWaiting says (w, from WaitingOn) or stops saying ("") that the run
// waits on alarms; the next renewal writes it, within TTL/4.
func (l *Lease) SetWaiting(w string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.me.Waiting = w
}

// Keep renews the lease every TTL/4 until Release. Before each
// renewal it reads the tag: when another run has taken it over, lost is
// called with that run and renewing stops. warn gets renewals that failed.
func (l *Lease) Keep(lost func(Holder), warn func(error)) {
	l.start(func(ctx context.Context) bool {
		cur, ok, err := CurrentHolder(ctx, l.c, l.url)
		if err == nil && ok && !cur.same(l.me) {
			lost(cur)
			return false
		}
		l.mu.Lock()
		l.me.Expires = l.now().Add(TTL).UTC().Truncate(time.Second)
		l.mu.Unlock()
		if err == nil {
			err = l.write(ctx)
		}
		if err != nil && warn != nil {
			warn(err)
		}
		return true
	})
}

// renewals run a lease's renewal every TTL/4, each within 20 s, until end
// or until a renewal finds the lease lost: the tag lease and the S3 lease
// differ only in what one renewal does.
type renewals struct {
	stop, done chan struct{}
}

// start runs renew every TTL/4; renew returns false when the lease was
// lost, which ends the renewals.
func (r *renewals) start(renew func(ctx context.Context) bool) {
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.done)
		t := time.NewTicker(TTL / 4)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			ok := renew(ctx)
			cancel()
			if !ok {
				return
			}
		}
	}()
}

// end stops the renewals (if started) and waits for the one under way.
func (r *renewals) end() {
	if r.stop != nil {
		close(r.stop)
		<-r.done
	}
}

// Release stops the renewals and removes the tag, if it is still this
// run's: a run that was taken over leaves the new holder's tag alone.
func (l *Lease) Release(ctx context.Context) error {
	l.end()
	cur, ok, err := CurrentHolder(ctx, l.c, l.url)
	if err != nil || !ok || !cur.same(l.me) {
		return err
	}
	_, err = l.c.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(l.url), TagKeys: []string{Tag}})
	return tagErr(err)
}

// tagErr turns a denied or unsupported tag call into ErrNoTagging.
func tagErr(err error) error {
	if err != nil && sqsapi.IsUnsupportedOrDenied(err) {
		return fmt.Errorf("%w: %v", ErrNoTagging, err)
	}
	return err
}
