package lease

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mfdlq/mfdlq/internal/awslimits"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/tagvalue"
)

// longHolder is a holder whose every word is as long as tagSafe allows,
// waiting on three alarms: its tag value would be ~290 characters.
func longHolder(now time.Time) Holder {
	return Holder{Operator: tagSafe(strings.Repeat("o", 80)), Host: tagSafe("ip-10-0-0-1." + strings.Repeat("h", 80)), PID: 4194304,
		Run: tagSafe("20261207T0210Z-" + strings.Repeat("r", 80)), Since: now, Expires: now.Add(TTL),
		Waiting: WaitingOn([]string{tagSafe(strings.Repeat("payment-gateway-5xx-", 4)), "b", "c"})}
}

// A long host, operator and --when-ok alarm would make the first TagQueue
// fail (SQS holds 256 characters; the limits proxy refuses as SQS does):
// the lease fits the value, keeping what ParseHolder and Same need.
func TestLeaseTagFitsTheLimit(t *testing.T) {
	ctx := context.Background()
	p, err := awslimits.New(localaws.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	cfg := localaws.Config(t)
	cfg.BaseEndpoint = aws.String(hs.URL)
	c := sqsapi.New(cfg)
	url, err := localaws.NewSeeder(localaws.Config(t)).CreateQueue(ctx, localaws.UniqueName("lease-long"), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	me := longHolder(now)
	if n := len(me.String()); n <= tagvalue.MaxLen {
		t.Fatalf("the holder's value is %d characters: the test must start over the limit", n)
	}
	l, err := Acquire(ctx, c, url, me, false, time.Now)
	if err != nil {
		t.Fatalf("acquire: %v (refused TagQueue %d)", err, p.Refused("TagQueue"))
	}
	got, ok, err := CurrentHolder(ctx, c, url)
	if err != nil || !ok {
		t.Fatalf("read back: %v %v", ok, err)
	}
	if !got.Same(me) || got.Run != me.Run || got.Host != me.Host || !got.Expires.Equal(me.Expires) || !strings.HasSuffix(got.Waiting, "+2") {
		t.Errorf("read back %+v, want the same run, host, pid, expiry and a waiting ending +2", got)
	}
	if p.Refused("TagQueue") != 0 {
		t.Errorf("%d TagQueue refused", p.Refused("TagQueue"))
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// fit leaves a value within the limit alone, and cuts one over it to
// exactly the limit.
func TestHolderFit(t *testing.T) {
	now := time.Date(2026, 12, 7, 2, 10, 0, 0, time.UTC)
	short := Holder{Operator: "ana", Host: "laptop", PID: 42, Run: "r1", Since: now, Expires: now.Add(TTL), Waiting: "gw"}
	if short.fit() != short {
		t.Errorf("fit changed a short holder: %+v", short.fit())
	}
	long := longHolder(now)
	f := long.fit()
	if n := len(f.String()); n != tagvalue.MaxLen {
		t.Errorf("fitted value is %d characters, want %d: %s", n, tagvalue.MaxLen, f.String())
	}
	if h, ok := ParseHolder(f.String()); !ok || !h.Same(long) || !h.Expires.Equal(long.Expires) {
		t.Errorf("fitted value does not parse back to the run: %+v", h)
	}
}

// A --when-ok alarm's name may be 255 characters, with spaces and signs a
// tag may not hold: the waiting word keeps its "+N" (how many more alarms
// a colleague's run waits on) whatever the first name's length, in a
// short holder as in one fitted to the limit.
func TestWaitingKeepsItsCountForALongAlarm(t *testing.T) {
	now := time.Date(2026, 12, 7, 2, 10, 0, 0, time.UTC)
	alarm := "Payments API (prod) 5XX rate #1 " + strings.Repeat("p99-latency-", 18)
	w := WaitingOn([]string{alarm, "b", "c"})
	for _, h := range []Holder{
		{Operator: "ana", Host: "laptop", PID: 42, Run: "r1", Since: now, Expires: now.Add(TTL), Waiting: w},
		func() Holder { h := longHolder(now); h.Waiting = w; return h }(),
	} {
		v := h.fit().String()
		got, ok := ParseHolder(v)
		if !ok || len(v) > tagvalue.MaxLen || !strings.HasSuffix(got.Waiting, "+2") || !strings.HasPrefix(got.Waiting, "Payments_API") {
			t.Errorf("tag value of %d characters %q: waiting %q, want the first alarm's name and +2", len(v), v, got.Waiting)
		}
	}
}
