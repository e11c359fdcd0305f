package health

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

func workspace(t *testing.T) *incident.Workspace {
	t.Helper()
	ws, err := incident.Open(filepath.Join(t.TempDir(), "orders-dlq-20261202T0300Z"))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

type said struct {
	mu      sync.Mutex
	lines   []string
	waiting []string
}

func (s *said) info(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, fmt.Sprintf(format, args...))
}

func (s *said) setWaiting(w string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting = append(s.waiting, w)
}

// A rerun after a SIGKILL takes up the killed run's wait: it says how long
// it has waited, and --give-up counts from the first start.
func TestBeforeResumesAKilledWait(t *testing.T) {
	ws := workspace(t)
	c, cw := setup(map[string]string{"gateway-5xx": StateAlarm})
	opts := Options{Alarms: []string{"gateway-5xx"}, For: 2 * time.Minute, GiveUp: time.Hour}
	first := t0.Add(-50 * time.Minute)
	if err := OpenWaits(ws).Start(KindBeforeMove, opts, "r1", first, first); err != nil {
		t.Fatal(err)
	}
	var out said
	s := &Session{Gate: New(cw, opts, c), Waits: OpenWaits(ws), Run: "r2", Info: out.info, SetWaiting: out.setWaiting, Waiting: "gateway-5xx"}
	err := s.Before(context.Background())
	var gu *GiveUpError
	if !errors.As(err, &gu) || !c.Now().Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("err %v at +%s, want a give-up 10 minutes on", err, c.Now().Sub(t0))
	}
	if len(out.lines) == 0 || !strings.Contains(out.lines[0], "resuming the wait begun 2026-12-02 02:10:00 UTC: waited 50m0s of --give-up 1h0m0s") {
		t.Fatalf("said %q", out.lines)
	}
	if strings.Join(out.waiting, "|") != "gateway-5xx|" {
		t.Fatalf("lease told %q, want the alarms then nothing", out.waiting)
	}
	recs, _ := ReadWaits(ws)
	if last := recs[len(recs)-1]; last.Type != MilestoneEnd || last.Outcome != OutcomeGaveUp {
		t.Fatalf("last record %+v", last)
	}
	if _, ok := Resumable(recs, opts.Alarms); ok {
		t.Fatal("a wait that gave up is resumable")
	}
}

// Ctrl-C while waiting ends the wait, written down as interrupted: the next
// run starts a new one.
func TestBeforeInterrupted(t *testing.T) {
	ws := workspace(t)
	c, cw := setup(map[string]string{"a": StateAlarm})
	ctx, cancel := context.WithCancel(context.Background())
	c.at(t0.Add(time.Minute), cancel)
	s := &Session{Gate: New(cw, Options{Alarms: []string{"a"}}, c), Waits: OpenWaits(ws)}
	if err := s.Before(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	recs, _ := ReadWaits(ws)
	if last := recs[len(recs)-1]; last.Outcome != OutcomeInterrupted {
		t.Fatalf("last record %+v", last)
	}
}

// During the move a break stops the segment at once (its context ends),
// the pause waits for --for of OK again, and the move goes on for what is
// left; the waits file has the pause and both ends.
func TestWatchedPausesAndResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ws := workspace(t)
		c := newBubbleClock(t0)
		cw := newFakeCW(&fakeClock{now: t0})
		cw.set("gateway-5xx", StateOK)
		var out said
		s := &Session{Gate: New(cw, Options{Alarms: []string{"gateway-5xx"}, For: time.Minute}, c), Waits: OpenWaits(ws),
			Info: out.info, SetWaiting: out.setWaiting, Waiting: "gateway-5xx"}
		go func() {
			_ = c.Sleep(context.Background(), 30*time.Second)
			cw.clock.now = c.Now()
			cw.set("gateway-5xx", StateAlarm)
			_ = c.Sleep(context.Background(), 2*time.Minute)
			cw.clock.now = c.Now()
			cw.set("gateway-5xx", StateOK)
		}()
		moved, segments := 0, 0
		var stoppedAt, resumedAt time.Time
		err := s.Watched(context.Background(), func(ctx context.Context) (bool, error) {
			segments++
			if segments == 2 {
				resumedAt = c.Now()
			}
			for moved < 120 { // one message a second
				if ctx.Err() != nil {
					stoppedAt = c.Now()
					return true, nil
				}
				_ = c.Sleep(ctx, time.Second)
				moved++
			}
			return false, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if segments != 2 || moved != 120 {
			t.Fatalf("%d segments, %d moved; want 2 and 120", segments, moved)
		}
		// Stopped within a watch's poll (plus a second's message) of the
		// flip at +30s; resumed at least --for after the OK at +2m30s.
		if d := stoppedAt.Sub(t0); d < 30*time.Second || d > 30*time.Second+PollWatch+time.Second {
			t.Errorf("stopped at +%s, want within %s of +30s", d, PollWatch)
		}
		if d := resumedAt.Sub(t0); d < 3*time.Minute+30*time.Second {
			t.Errorf("resumed at +%s, before a minute of OK after +2m30s", d)
		}
		recs, _ := ReadWaits(ws)
		var kinds []string
		for _, r := range recs {
			kinds = append(kinds, r.Type+":"+r.Kind+r.Outcome)
		}
		// The watch writes what it saw (OK at its first read, then ALARM),
		// then the pause its break made.
		if got := strings.Join(kinds, " "); !strings.HasPrefix(got, "state: state: state:pause wait:pause") || !strings.HasSuffix(got, "end:ok") ||
			recs[0].State != StateOK || recs[1].State != StateAlarm {
			t.Fatalf("waits file %s", got)
		}
		if len(out.lines) < 2 || !strings.Contains(out.lines[0], `paused: "gateway-5xx" is ALARM`) {
			t.Fatalf("said %q", out.lines)
		}
	})
}

// A watch whose reads fail says so when the streak begins and when it
// ends, and writes both: the move goes on meanwhile (up to WatchBlind),
// and the person watching knows its guard was blind for a while.
func TestWatchedSaysWhenItCannotSee(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ws := workspace(t)
		c := newBubbleClock(t0)
		cw := newFakeCW(&fakeClock{now: t0})
		cw.set("gateway-5xx", StateOK)
		var out said
		s := &Session{Gate: New(cw, Options{Alarms: []string{"gateway-5xx"}, For: time.Minute}, c), Waits: OpenWaits(ws), Info: out.info}
		go func() {
			_ = c.Sleep(context.Background(), 7*time.Second)
			cw.setFail(errors.New("connection reset by peer"))
			_ = c.Sleep(context.Background(), 12*time.Second)
			cw.setFail(nil)
		}()
		err := s.Watched(context.Background(), func(ctx context.Context) (bool, error) {
			if err := c.Sleep(ctx, 40*time.Second); err != nil {
				t.Errorf("the move was stopped (%v): reads failing for less than %s are no break", err, WatchBlind)
			}
			return false, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.lines) != 2 || !strings.Contains(out.lines[0], "the alarms could not be read (read the alarms: connection reset by peer): the move goes on, and stops if they stay unreadable for 30s") ||
			!strings.Contains(out.lines[1], "the alarms are read again (they could not be for ") {
			t.Fatalf("said %q", out.lines)
		}
		recs, _ := ReadWaits(ws)
		var types []string
		for _, r := range recs {
			types = append(types, r.Type)
		}
		if got := strings.Join(types, " "); got != "state blind seeing" || !strings.Contains(recs[1].Note, "connection reset") || !recs[2].Started.Equal(recs[1].Time) {
			t.Fatalf("waits file %s: %+v", got, recs)
		}
	})
}
