package lease

import (
	"context"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Announce, then check. Every run that takes the tag lease writes two
// tags in one TagQueue: its own claim, ClaimPrefix+its run id, and the
// shared Tag, both valued with its Holder. After Settle it reads the
// queue's tags back until its own claim is readable (readBack), and it
// goes on only if no other live run's claim (nor a live shared holder
// other than itself) is in that read; otherwise it removes its claim and
// loses. Two runs cannot both go on: if A's read-back did not show B's
// claim, B's claim became readable after A's read-back, which already
// showed A's own claim, so B's read-back, later still, shows A's. No
// run's delay enters the argument — a rival stalled for seconds between
// its look and its write is caught — only the tags' consistency: it holds
// if a tag, once readable to one read, is readable to every later one,
// whatever the lag; and, were reads to disagree (a replica behind
// another), if every tag is readable to all within Settle of its write.
// Both may lose; then each retries once the other's claim is gone, in the
// order of their ranks among the claims they saw (rankBackoff), and the
// later finds the earlier's claim and is refused. claims_test.go measures
// the old and the new protocol against a competitor's stall and the
// tags' lag.
//
// The shared Tag stays what a person and an older mfdlq (which reads only
// it) see; a loser that overwrote it removes it again. Claims of runs
// that are no longer live are removed when seen; a live run's claim lives
// from its write to its Release. SQS advises at most 50 tags a queue: a
// run writes a claim only when it saw no live claim of another, so the
// claims at one moment are the holder's, those of runs that read the
// queue before any claim was readable, and those of runs killed within
// their read-back (each gone at the next Acquire or renewal that sees it,
// or expired within TTL) — a handful, beside the note's two tags.

// ClaimPrefix begins the key of a run's claim tag: mfdlq-lease-RUN.
const ClaimPrefix = Tag + "-"

// claimKey is the key of h's claim tag: ClaimPrefix and its run id, made
// tag-safe and at most maxWord bytes, so at most 60 characters of the 128
// SQS allows in a key.
func claimKey(h Holder) string { return ClaimPrefix + tagSafe(h.Run) }

// attempts is how many rounds Acquire makes when it loses a read-back to
// runs that may have lost it too.
const attempts = 4

// tagged is a claim or the shared tag as read: its holder and the value.
type tagged struct {
	h   Holder
	raw string
}

// view is the lease's part of a DLQ's tags, read in one ListQueueTags.
type view struct {
	shared    tagged
	hasShared bool
	claims    map[string]tagged // by key; values that are not a Holder are left out
}

// readView reads the DLQ's tags.
func readView(ctx context.Context, c Tags, url string) (view, error) {
	out, err := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
	if err != nil {
		return view{}, tagErr(err)
	}
	v := view{claims: map[string]tagged{}}
	for k, raw := range out.Tags {
		h, ok := ParseHolder(raw)
		switch {
		case !ok:
		case k == Tag:
			v.shared, v.hasShared = tagged{h, raw}, true
		case strings.HasPrefix(k, ClaimPrefix):
			v.claims[k] = tagged{h, raw}
		}
	}
	return v, nil
}

// keys is v's claim keys in order.
func (v view) keys() []string {
	ks := make([]string, 0, len(v.claims))
	for k := range v.claims {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// holder is who holds the lease as v says: the shared tag's holder when
// it is live, else the oldest live claim's (a run taking the lease, or a
// holder whose shared tag a loser removed), else the shared tag's as it
// is.
func (v view) holder(now time.Time) (Holder, bool) {
	if v.hasShared && Live(v.shared.h, now) {
		return v.shared.h, true
	}
	var oldest Holder
	found := false
	for _, k := range v.keys() {
		if h := v.claims[k].h; Live(h, now) && (!found || h.Since.Before(oldest.Since)) {
			oldest, found = h, true
		}
	}
	if found {
		return oldest, true
	}
	return v.shared.h, v.hasShared
}

// rival is a live run other than me (whose claim is key) that v shows:
// the shared tag's holder (race false), else another run's claim (race
// true). ignore holds the values a take-over read before it wrote, by
// key: those runs are the ones it takes over.
func (v view) rival(me Holder, key string, now time.Time, ignore map[string]string) (h Holder, race, ok bool) {
	if s := v.shared; v.hasShared && !s.h.same(me) && Live(s.h, now) && ignore[Tag] != s.raw {
		return s.h, false, true
	}
	for _, k := range v.keys() {
		if c := v.claims[k]; k != key && !c.h.same(me) && Live(c.h, now) && ignore[k] != c.raw {
			return c.h, true, true
		}
	}
	return Holder{}, false, false
}

// dead is the keys of v's claims, other than key, whose runs are no
// longer live (expired, or a process gone from this host).
func (v view) dead(key string, now time.Time) []string {
	var ks []string
	for _, k := range v.keys() {
		if k != key && !Live(v.claims[k].h, now) {
			ks = append(ks, k)
		}
	}
	return ks
}

// rank is key's place among the live claims v shows and key itself: 0
// for the smallest key (the oldest run id, as NewRunID begins with the
// time).
func (v view) rank(key string, now time.Time) int {
	n := 0
	for _, k := range v.keys() {
		if k < key && Live(v.claims[k].h, now) {
			n++
		}
	}
	return n
}

// rankBackoff is how long a run that lost a read-back waits before it
// tries again, in units of how long its own claim took to become readable
// (unit: Settle or more), so that the claims' removal has become readable
// too; runs that lost together retry two units apart by rank, so the
// later one reads the earlier one's claim and is refused; the jitter (from
// the run id) separates runs that saw different claims and reckoned the
// same rank.
func rankBackoff(run string, rank, attempt int, unit time.Duration) time.Duration {
	f := fnv.New32a()
	f.Write([]byte(run + "#" + strconv.Itoa(attempt)))
	return unit*time.Duration(1+2*rank) + time.Duration(f.Sum32()%uint32(unit/2/time.Millisecond))*time.Millisecond
}

// untag removes keys, if any.
func untag(ctx context.Context, c Tags, url string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := c.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(url), TagKeys: keys})
	return tagErr(err)
}
