package lease

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Of several runs that take the lease at the same moment, against the
// local server's queue tags through the SDK, exactly one gets it (those
// that lost together try again, by rank); the others are told who holds
// it. Releasing removes the tags, claims included, and leaves the
// queue's other tags; a taken-over lease is left alone.
func TestLeaseRace(t *testing.T) {
	ctx := context.Background()
	c := sqsapi.New(localaws.Config(t))
	s := localaws.NewSeeder(localaws.Config(t))
	url, err := s.CreateQueue(ctx, localaws.UniqueName("lease"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(url), Tags: map[string]string{"team": "payments"}}); err != nil {
		t.Fatal(err)
	}
	const n = 4
	leases := make([]*Lease, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			me := Me("op", "run-"+strconv.Itoa(i), time.Now())
			leases[i], errs[i] = Acquire(ctx, c, url, me, false, time.Now)
		}()
	}
	wg.Wait()
	var winner *Lease
	for i := range n {
		var held *HeldError
		switch {
		case errs[i] == nil && winner == nil:
			winner = leases[i]
		case errs[i] == nil:
			t.Fatal("two runs hold the lease")
		case !errors.As(errs[i], &held) || held.Holder.Run == "":
			t.Fatalf("run %d: %v; want a HeldError naming the holder", i, errs[i])
		}
	}
	if winner == nil {
		t.Fatal("no run got the lease")
	}
	cur, ok, err := CurrentHolder(ctx, c, url)
	if err != nil || !ok || !cur.same(winner.me) {
		t.Fatalf("tag holds %+v (%v, %v); want the winner", cur, ok, err)
	}
	// Taken over: the old holder's release leaves the new tag.
	thief := Me("bob", "r-thief", time.Now())
	if _, err := Acquire(ctx, c, url, thief, true, time.Now); err != nil {
		t.Fatal(err)
	}
	if err := winner.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if cur, ok, _ := CurrentHolder(ctx, c, url); !ok || cur.Run != "r-thief" {
		t.Fatalf("after the old holder's release the tag is %+v, want the new holder's", cur)
	}
	l := &Lease{c: c, url: url, key: claimKey(thief), me: thief, now: time.Now}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
	if err != nil || len(out.Tags) != 1 || out.Tags["team"] != "payments" {
		t.Fatalf("tags after release: %v %v; want the team's tag alone", out.Tags, err)
	}
}

func TestHolderRoundTripAndLiveness(t *testing.T) {
	now := time.Date(2026, 11, 30, 21, 4, 0, 0, time.UTC)
	h := Holder{Operator: "al ice\x1b[31m", Host: "laptop-2", PID: 4242, Run: "r1", Since: now, Expires: now.Add(TTL)}
	got, ok := ParseHolder(h.String())
	if !ok || got.Operator != "al_ice__31m" || got.Host != "laptop-2" || got.PID != 4242 || !got.Expires.Equal(h.Expires) {
		t.Fatalf("ParseHolder(%q) = %+v, %v", h.String(), got, ok)
	}
	if !Live(got, now) || Live(got, now.Add(TTL)) {
		t.Error("a lease is live until it expires")
	}
	host, _ := os.Hostname()
	dead := Holder{Host: tagSafe(host), PID: 1 << 22, Run: "r", Expires: now.Add(time.Hour)}
	if Live(dead, now) {
		t.Error("a lease of a process gone from this host is not live")
	}
}

type deniedTags struct{ Tags }

func (deniedTags) ListQueueTags(context.Context, *sqs.ListQueueTagsInput, ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	return nil, &smithy.GenericAPIError{Code: "AccessDenied", Message: "not allowed"}
}

func TestLeaseWithoutTagPermission(t *testing.T) {
	_, err := Acquire(context.Background(), deniedTags{}, "u", Me("op", "r", time.Now()), false, time.Now)
	if !errors.Is(err, ErrNoTagging) {
		t.Fatalf("err = %v; want ErrNoTagging", err)
	}
}

// gatedTags holds its first TagQueue until open is closed: a run stalled
// between its look and its write (a throttled call retried, a GC pause).
type gatedTags struct {
	Tags
	open    chan struct{}
	looked  chan struct{}
	once    sync.Once
	written sync.Once
}

func (g *gatedTags) ListQueueTags(ctx context.Context, in *sqs.ListQueueTagsInput, opts ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	out, err := g.Tags.ListQueueTags(ctx, in, opts...)
	g.once.Do(func() { close(g.looked) })
	return out, err
}

func (g *gatedTags) TagQueue(ctx context.Context, in *sqs.TagQueueInput, opts ...func(*sqs.Options)) (*sqs.TagQueueOutput, error) {
	g.written.Do(func() { <-g.open })
	return g.Tags.TagQueue(ctx, in, opts...)
}

// On moto through the SDK: run B looks (the DLQ is free), then stalls
// while run A takes the lease from start to end of its read-back; B's
// write lands last. The lease before issue 46 let B go on too (its tag
// was the last written); now B's read-back finds A's claim and B loses,
// removing its claim, and A still holds the lease.
func TestLeaseStalledRivalLoses(t *testing.T) {
	ctx := context.Background()
	c := sqsapi.New(localaws.Config(t))
	url, err := localaws.NewSeeder(localaws.Config(t)).CreateQueue(ctx, localaws.UniqueName("lease-stall"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &gatedTags{Tags: c, open: make(chan struct{}), looked: make(chan struct{})}
	bErr := make(chan error, 1)
	go func() {
		_, err := Acquire(ctx, b, url, Me("bo", "r-b", time.Now()), false, time.Now)
		bErr <- err
	}()
	<-b.looked
	a, err := Acquire(ctx, c, url, Me("al", "r-a", time.Now()), false, time.Now)
	if err != nil {
		t.Fatalf("A: %v", err)
	}
	close(b.open)
	var held *HeldError
	if err := <-bErr; !errors.As(err, &held) || held.Holder.Run != "r-a" {
		t.Fatalf("B, stalled past A's read-back: %v; want held by r-a", err)
	}
	out, err := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
	if err != nil || out.Tags[ClaimPrefix+"r-b"] != "" || out.Tags[ClaimPrefix+"r-a"] == "" {
		t.Fatalf("tags after B lost: %v %v; want A's claim, not B's", out.Tags, err)
	}
	if h, ok, err := CurrentHolder(ctx, c, url); err != nil || !ok || h.Run != "r-a" {
		t.Fatalf("holder after B lost: %+v %v %v; want r-a", h, ok, err)
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
