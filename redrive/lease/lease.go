// Package lease keeps one redrive at a time on a DLQ: a run holds the
// queue's tags (who, where, until when), renews them while it lives, and
// gives them back at the end; a second run sees the holder and stops, or
// takes over a dead one's. Tags have no compare-and-swap, so the lease
// announces, then checks (claims.go): each run writes its own claim tag
// mfdlq-lease-RUN beside the shared mfdlq-lease, waits Settle and reads
// the tags back; it goes on only if no other live run's claim is there.
// Of two runs at most one goes on, whatever either's delays, unless SQS
// shows one run a tag it still hides from the other's read more than
// Settle after the write — SQS documents no read-after-write for tags, so
// that is the one assumption left. Where the operator
// has a bucket, the lease is an S3 object written conditionally instead
// (s3.go: If-None-Match to create, If-Match to renew and delete), which is
// a real compare-and-swap. Both kinds are a Store.
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
// is how long a writer waits before it reads the tags back: the time a
// tag written may take to become readable. It is not a rival's delay —
// announce-then-check needs none (claims.go) — so it can be short: at
// 20 ms a call a second of it was the whole gap between a run and the
// bare 32-worker loop (issue 46: a build with 200 ms reached 99 % of the
// loop's whole-process rate on 5,000 messages).
const (
	TTL    = 2 * time.Minute
	Settle = 200 * time.Millisecond
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
	key string // this run's claim tag
	me  Holder
	now func() time.Time
	// gone is what a take-over read before it wrote, by key: the runs it
	// took over, whose tags as they were then neither refuse it nor end
	// its renewals.
	gone map[string]string

	mu sync.Mutex
	renewals
}

// CurrentHolder reads who holds the DLQ's lease: the shared tag's live
// holder, else the oldest live claim's (view.holder); ok is false when
// neither is set.
func CurrentHolder(ctx context.Context, c Tags, url string) (Holder, bool, error) {
	v, err := readView(ctx, c, url)
	if err != nil {
		return Holder{}, false, err
	}
	h, ok := v.holder(time.Now())
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
// *HeldError) when another live run holds it or is taking it, unless
// takeOver; it writes its claim and the shared tag, waits Settle and
// reads the tags back (claims.go), so of runs started together at most
// one goes on; runs that all lost try again, up to attempts rounds, so
// that one of them does. A take-over makes one round. ErrNoTagging means
// the tags are out of reach.
func Acquire(ctx context.Context, c Tags, url string, me Holder, takeOver bool, now func() time.Time) (*Lease, error) {
	l := &Lease{c: c, url: url, key: claimKey(me), me: me, now: now}
	for attempt := 1; ; attempt++ {
		rank, unit, err := l.round(ctx, takeOver)
		if err == nil {
			return l, nil
		}
		if rank < 0 || takeOver || attempt == attempts {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(rankBackoff(l.me.Run, rank, attempt, unit)):
		}
	}
}

// round is one look, announce and check. A round lost at the check
// returns the claim's rank among those it saw (its claim removed again)
// and how long the claim took to become readable; otherwise rank is -1.
func (l *Lease) round(ctx context.Context, takeOver bool) (rank int, unit time.Duration, err error) {
	v, err := readView(ctx, l.c, l.url)
	if err != nil {
		return -1, 0, err
	}
	now := l.now()
	if takeOver {
		l.gone = map[string]string{}
		for k, c := range v.claims {
			l.gone[k] = c.raw
		}
		if v.hasShared {
			l.gone[Tag] = v.shared.raw
		}
	} else if h, race, ok := v.rival(l.me, l.key, now, nil); ok {
		return -1, 0, &HeldError{Holder: h, Race: race}
	}
	// Claims of runs that died are removed as they are seen; a failure
	// leaves them to expire.
	_ = untag(ctx, l.c, l.url, v.dead(l.key, now))
	if err := l.write(ctx); err != nil {
		return -1, 0, err
	}
	back, unit, err := l.readBack(ctx)
	if err != nil {
		l.drop(ctx)
		return -1, 0, err
	}
	now = l.now()
	if h, _, ok := back.rival(l.me, l.key, now, l.gone); ok {
		l.drop(ctx)
		return back.rank(l.key, now), unit, &HeldError{Holder: h, Race: true}
	}
	// A take-over removes the claims of the runs it took over.
	var taken []string
	for k, raw := range l.gone {
		if c, ok := back.claims[k]; ok && k != l.key && c.raw == raw {
			taken = append(taken, k)
		}
	}
	_ = untag(ctx, l.c, l.url, taken)
	return -1, unit, nil
}

// ErrNotReadBack is a lease whose claim tag could not be read back
// readBackWithin after it was written: SQS's tags lag more than the
// lease allows for, so it cannot tell whether another run took the DLQ.
var ErrNotReadBack = errors.New("the lease's tag was written but not readable within " + readBackWithin.String() + ": SQS's tags lag; run again, or use --lease s3://BUCKET/PREFIX")

// readBackWithin bounds readBack's wait for a claim to become readable.
const readBackWithin = 3 * time.Second

// readBack reads the tags Settle after the write, and again after twice
// as long each time, until this run's claim is readable in them (at most
// readBackWithin): the check is made on a read that sees this run's own
// claim, so a rival's read, made later, sees it too if tags once readable
// stay readable — whatever the lag. waited is how long it waited.
func (l *Lease) readBack(ctx context.Context) (v view, waited time.Duration, err error) {
	for wait := Settle; ; wait *= 2 {
		select {
		case <-ctx.Done():
			return view{}, waited, ctx.Err()
		case <-time.After(wait):
		}
		waited += wait
		if v, err = readView(ctx, l.c, l.url); err != nil {
			return view{}, waited, err
		}
		if c, ok := v.claims[l.key]; ok && c.h.same(l.me) {
			return v, waited, nil
		}
		if waited >= readBackWithin {
			return view{}, waited, ErrNotReadBack
		}
	}
}

// drop removes this run's claim, and the shared tag when it reads as this
// run's: a run that lost, or stopped, before it held the lease. It runs
// past ctx's end; a failure leaves the tags to expire within TTL.
func (l *Lease) drop(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = l.remove(ctx)
}

// remove untags this run's claim, and the shared tag if it is this run's.
func (l *Lease) remove(ctx context.Context) error {
	v, rerr := readView(ctx, l.c, l.url)
	keys := []string{l.key}
	if rerr == nil && v.hasShared && v.shared.h.same(l.me) {
		keys = append(keys, Tag)
	}
	return errors.Join(rerr, untag(ctx, l.c, l.url, keys))
}

// write writes this run's claim and the shared tag, in one TagQueue.
func (l *Lease) write(ctx context.Context) error {
	l.mu.Lock()
	l.me = l.me.fit()
	v := l.me.String()
	l.mu.Unlock()
	_, err := l.c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(l.url), Tags: map[string]string{Tag: v, l.key: v}})
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
// renewal it reads the tags: when the shared tag names another run (one
// that took it over), or another live run's claim is there (a run that
// went on beside this one, which only a tag readable later than Settle
// allows), lost is called with that run and renewing stops. Claims of
// runs no longer live are removed. warn gets renewals that failed.
func (l *Lease) Keep(lost func(Holder), warn func(error)) {
	l.start(func(ctx context.Context) bool {
		v, err := readView(ctx, l.c, l.url)
		if err == nil {
			now := l.now()
			if v.hasShared && !v.shared.h.same(l.me) {
				lost(v.shared.h)
				return false
			}
			if h, _, ok := v.rival(l.me, l.key, now, l.gone); ok {
				lost(h)
				return false
			}
			_ = untag(ctx, l.c, l.url, v.dead(l.key, now))
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

// Release stops the renewals and removes this run's claim, and the
// shared tag if it is still this run's: a run that was taken over leaves
// the new holder's tag alone.
func (l *Lease) Release(ctx context.Context) error {
	l.end()
	return l.remove(ctx)
}

// tagErr turns a denied or unsupported tag call into ErrNoTagging.
func tagErr(err error) error {
	if err != nil && sqsapi.IsUnsupportedOrDenied(err) {
		return fmt.Errorf("%w: %v", ErrNoTagging, err)
	}
	return err
}
