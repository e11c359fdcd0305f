package receipts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/aws/smithy-go"
)

func TestMaybeCarriedOut(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&net.OpError{Op: "read", Err: errors.New("connection reset")}, true},
		{&smithy.GenericAPIError{Code: "InternalError", Fault: smithy.FaultServer}, true},
		{&smithy.GenericAPIError{Code: "AccessDenied", Fault: smithy.FaultClient}, false},
		{fmt.Errorf("receive: %w", context.Canceled), false},
		{nil, false},
	} {
		if got := MaybeCarriedOut(tc.err); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
}

// A failed receive that SQS may have carried out hides what it took until
// its error plus the visibility; a refusal hides nothing.
func TestLostReceiveUntil(t *testing.T) {
	l := Lost{Visibility: 30 * time.Second}
	if l.Failed(t0, &smithy.GenericAPIError{Code: "AccessDenied", Fault: smithy.FaultClient}) || !l.Until().IsZero() || l.Consecutive() != 1 {
		t.Fatal("a refusal may have hidden nothing")
	}
	if !l.Failed(t0.Add(time.Second), errors.New("EOF")) || !l.Until().Equal(t0.Add(31*time.Second)) || !l.Visible().Equal(t0.Add(32*time.Second)) {
		t.Fatalf("until %s, visible %s", l.Until(), l.Visible())
	}
	l.Stray(t0) // an earlier stray does not move it back
	if !l.Until().Equal(t0.Add(31 * time.Second)) {
		t.Fatalf("until moved back to %s", l.Until())
	}
	if got := l.Bound(3, 15, 10); got != 5 {
		t.Fatalf("bound %d, want the 5 of the backlog not received", got)
	}
	l.Succeeded()
	if l.Consecutive() != 0 || l.Failures() != 1 {
		t.Fatal("a success resets the run of failures, not the failures counted")
	}
}

// AwaitVisible waits on the clock, not the wall: until the time named,
// then a look; while the count says they are hidden, up to N looks.
func TestAwaitVisibleLooksAtMostN(t *testing.T) {
	c := NewFake(t0)
	c.Auto = true
	looks := 0
	if !AwaitVisible(context.Background(), c, t0.Add(30*time.Second), 5, func() bool { looks++; return true }) {
		t.Fatal("not interrupted, yet false")
	}
	if looks != 5 || c.Now().Before(t0.Add(34*time.Second)) {
		t.Fatalf("%d looks, clock at +%s; want 5 looks, at least 30 s + 4 margins", looks, c.Now().Sub(t0))
	}
	looks = 0
	AwaitVisible(context.Background(), c, c.Now(), 5, func() bool { looks++; return looks < 2 })
	if looks != 2 {
		t.Fatalf("%d looks, want 2: it stops once they are visible", looks)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if AwaitVisible(ctx, NewFake(t0), t0.Add(time.Minute), 5, func() bool { return true }) {
		t.Fatal("a cancelled wait said the messages are visible")
	}
}
