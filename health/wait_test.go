package health

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"
)

var t0 = time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)

func setup(states map[string]string) (*fakeClock, *fakeCW) {
	c := &fakeClock{now: t0}
	cw := newFakeCW(c)
	for n, s := range states {
		cw.set(n, s)
	}
	return c, cw
}

// The wait ends at the first read after every alarm has had --for of OK,
// counted from its turn to OK, not before.
func TestWaitEndsAfterForOfOK(t *testing.T) {
	c, cw := setup(map[string]string{"gateway-5xx": StateAlarm, "db-cpu": StateOK})
	c.at(t0.Add(3*time.Minute), func() { cw.set("gateway-5xx", StateOK) })
	g := New(cw, Options{Alarms: []string{"gateway-5xx", "db-cpu"}, For: 2 * time.Minute}, c)
	var last Status
	if err := g.Wait(context.Background(), t0, func(s Status) { last = s }); err != nil {
		t.Fatal(err)
	}
	ended := c.Now()
	if ended.Before(t0.Add(5*time.Minute)) || ended.After(t0.Add(5*time.Minute+PollWait)) {
		t.Fatalf("wait ended at +%s, want +5m (OK at +3m, --for 2m), within one poll", ended.Sub(t0))
	}
	if !last.Ready || last.Alarms[0].State != StateOK || last.Alarms[0].Left != 0 {
		t.Fatalf("last status %+v", last)
	}
}

// An alarm OK since long before the wait began does not hold it up.
func TestWaitAlreadyOKLongEnough(t *testing.T) {
	c, cw := setup(map[string]string{"a": StateOK})
	c.now = t0.Add(time.Hour)
	g := New(cw, Options{Alarms: []string{"a"}, For: 10 * time.Minute}, c)
	if err := g.Wait(context.Background(), c.Now(), nil); err != nil {
		t.Fatal(err)
	}
	if cw.callCount() != 1 || !c.Now().Equal(t0.Add(time.Hour)) {
		t.Fatalf("%d calls, ended at %s: want one read and no sleep", cw.callCount(), c.Now())
	}
}

// A flip to ALARM and back between two reads restarts the streak: OK
// counts from the read that saw it back, never from before the flip.
func TestWaitFlipBetweenReadsRestartsTheStreak(t *testing.T) {
	c, cw := setup(map[string]string{"a": StateOK})
	g := New(cw, Options{Alarms: []string{"a"}, For: 5 * time.Minute}, c)
	c.at(t0.Add(2*time.Minute+time.Second), func() { cw.set("a", StateAlarm); cw.set("a", StateOK) })
	var broke bool
	if err := g.Wait(context.Background(), t0, func(s Status) { broke = broke || s.Alarms[0].Broke }); err != nil {
		t.Fatal(err)
	}
	if !broke || c.Now().Before(t0.Add(7*time.Minute)) {
		t.Fatalf("ended at +%s (broke seen: %v), want ≥ +7m: the flip at +2m restarts the 5m", c.Now().Sub(t0), broke)
	}
}

// --give-up ends a wait that never saw enough OK, counted from the
// wait's first start (a resumed wait has less left), with a bounded
// number of calls.
func TestWaitGivesUp(t *testing.T) {
	c, cw := setup(map[string]string{"gateway-5xx": StateAlarm})
	g := New(cw, Options{Alarms: []string{"gateway-5xx"}, For: 10 * time.Minute, GiveUp: time.Hour}, c)
	started := t0.Add(-50 * time.Minute) // a killed run began 50 minutes ago
	err := g.Wait(context.Background(), started, nil)
	var gu *GiveUpError
	if !errors.As(err, &gu) {
		t.Fatalf("err %v, want a GiveUpError", err)
	}
	if !c.Now().Equal(t0.Add(10*time.Minute)) || gu.Waited != time.Hour {
		t.Fatalf("gave up at +%s after %s, want +10m after 1h", c.Now().Sub(t0), gu.Waited)
	}
	if n := cw.callCount(); n > int(10*time.Minute/PollWait)+2 {
		t.Fatalf("%d calls in 10 minutes, more than one per %s", n, PollWait)
	}
	if !strings.Contains(err.Error(), `"gateway-5xx" ALARM since`) {
		t.Fatalf("message %q does not name the alarm", err)
	}
}

func TestWaitEndsOnCancel(t *testing.T) {
	c, cw := setup(map[string]string{"a": StateAlarm})
	ctx, cancel := context.WithCancel(context.Background())
	c.at(t0.Add(time.Minute), cancel)
	err := New(cw, Options{Alarms: []string{"a"}}, c).Wait(ctx, t0, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// A missing alarm and a denied read end the wait at once; a throttled
// read does not: the wait reports it and reads again, less often.
func TestWaitErrors(t *testing.T) {
	c, cw := setup(map[string]string{"a": StateOK})
	_, err := New(cw, Options{Alarms: []string{"a", "typo"}}, c).Check(context.Background())
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(nf.Names) != 1 || nf.Names[0] != "typo" {
		t.Fatalf("err %v, want NotFoundError for typo", err)
	}
	cw.setFail(&smithy.GenericAPIError{Code: "AccessDenied", Message: "not authorized"})
	_, err = New(cw, Options{Alarms: []string{"a"}}, c).Check(context.Background())
	var de *DeniedError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "cloudwatch:DescribeAlarms") {
		t.Fatalf("err %v, want DeniedError naming the permission", err)
	}

	cw.setFail(&smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"})
	c.at(t0.Add(3*time.Minute), func() { cw.setFail(nil) })
	g := New(cw, Options{Alarms: []string{"a"}, For: time.Minute}, c)
	failed := 0
	if err := g.Wait(context.Background(), c.Now(), func(s Status) {
		if s.Error != "" {
			failed++
		}
	}); err != nil {
		t.Fatal(err)
	}
	if failed < 2 || c.slept[1] != 2*c.slept[0] {
		t.Fatalf("%d failed reads, sleeps %v: want the interval doubled", failed, c.slept)
	}
	for _, d := range c.slept {
		if d > PollMax {
			t.Fatalf("slept %s, more than %s", d, PollMax)
		}
	}
}

// A watch sends a break within one PollWatch of an alarm leaving OK, and
// one when the alarms stay unreadable for WatchBlind.
func TestWatchBreaks(t *testing.T) {
	c, cw := setup(map[string]string{"a": StateOK})
	g := New(cw, Options{Alarms: []string{"a"}}, c)
	c.at(t0.Add(time.Minute+time.Second), func() { cw.set("a", StateAlarm) })
	b, ok := <-g.Watch(context.Background(), nil)
	if !ok || b.Alarm != "a" || b.State != StateAlarm || b.Time.After(t0.Add(time.Minute+time.Second+PollWatch)) {
		t.Fatalf("break %+v at +%s", b, b.Time.Sub(t0))
	}
	if got := b.Reason(); got != `"a" is ALARM` {
		t.Fatalf("reason %q", got)
	}

	c2, cw2 := setup(map[string]string{"a": StateOK})
	c2.at(t0.Add(time.Minute), func() { cw2.setFail(errors.New("connection refused")) })
	b, ok = <-New(cw2, Options{Alarms: []string{"a"}}, c2).Watch(context.Background(), nil)
	if !ok || b.Err == nil || b.Time.Sub(t0) < time.Minute+WatchBlind {
		t.Fatalf("blind break %+v at +%s, want after %s of failed reads", b, b.Time.Sub(t0), WatchBlind)
	}
}

func TestCheckNamesAndDurations(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"a", "a", "b"}, ""},
		{[]string{""}, "empty"},
		{[]string{"a\x1b[31m"}, "control characters"},
		{[]string{strings.Repeat("x", 256)}, "1 to 255"},
		{make101(), "at most 100"},
	} {
		got, err := CheckNames(tc.in)
		switch {
		case tc.want == "" && (err != nil || len(got) != 2):
			t.Errorf("%q: %v %v", tc.in, got, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: err %v, want %q", tc.in, err, tc.want)
		}
	}
	if err := CheckDurations(7*time.Hour, 6*time.Hour); err == nil || !strings.Contains(err.Error(), "longer than --give-up") {
		t.Errorf("--for > --give-up: %v", err)
	}
	if err := CheckDurations(0, time.Hour); err == nil {
		t.Error("--for 0 passed")
	}
}

func make101() []string {
	out := make([]string, 101)
	for i := range out {
		out[i] = strings.Repeat("a", i+1)
	}
	return out
}
