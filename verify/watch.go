package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// MaxPeek bounds the messages one look peeks at: a DLQ deeper than that
// is judged by its depth, never by a peek that did not see it whole.
const MaxPeek = 1000

// peekVisibility is how long (seconds) a look's peek hides each message
// if it cannot make it visible again at once.
const peekVisibility = 2

// ErrInterrupted is what Watch.Run returns when its context ends between
// two looks: the verdict is not known.
var ErrInterrupted = errors.New("interrupted")

// Watch looks at the queues until the judgement is done or Wait runs out:
// verify's verdict over time. Build it with the queues and the record of
// the redrive, then call Run.
type Watch struct {
	SQS       sqsapi.Client
	CW        cwapi.MetricsAPI
	DLQ, Dest *sqsapi.Queue
	// Dests are the destination queues of a move to several, in the order
	// of Rec.Dests (empty: Dest).
	Dests []*sqsapi.Queue
	Rec   Redriven
	// NoPeek judges by counts only: nothing is received from the DLQ (one
	// with its own redrive policy would count each peek toward its
	// maxReceiveCount).
	NoPeek bool
	// Logs reads the log group of the Lambda function a redrive to lambda:
	// invoked (the return window's LogGroup) for the redriven events (nil:
	// not read, never a pass).
	Logs LogsAPI
	// Wait bounds the watch, Interval spaces the looks, and a pass must
	// hold for Settle over two looks at least (0: the first passing look).
	Wait, Interval, Settle time.Duration
	Now                    func() time.Time
	// Warn receives what could not be read (CloudWatch), once.
	Warn func(format string, args ...any)
	// Status, when set, is shown after each look that did not end the
	// watch, with when the watch gives up.
	Status func(obs Observation, deadline time.Time)

	noMetric  bool
	baselines []*Traffic // per destination; nil: quiet or unknown
}

// Run looks every Interval until the fix is proven or disproven or Wait
// runs out; ErrInterrupted when ctx ends first.
func (w *Watch) Run(ctx context.Context) (Result, error) {
	start := time.Now()
	deadline := start.Add(w.Wait)
	res := Result{Moved: w.Rec.Moved, DestQueue: w.Dest.Name, Unchecked: []string{}, Destinations: []DestResult{}}
	if len(w.Dests) > 1 {
		res.DestQueue = "" // each is in Destinations
	}
	w.readBaselines(ctx)
	var passingSince time.Time
	passLooks := 0
	done := false
	for {
		obs, err := w.observe(ctx)
		if err != nil {
			return res, err
		}
		res.Looks++
		j := Judge(obs, w.Rec)
		res.Last, res.Returned, res.DLQVisible, res.Reasons, res.Unchecked = obs, obs.Returned, obs.DLQVisible, j.Reasons, append([]string{}, j.Unchecked...)
		res.Destinations, res.NewInDLQ = append([]DestResult{}, j.Dests...), j.NewInDLQ
		res.Waited = time.Since(start).Round(time.Second).Seconds()
		if j.Done && !j.Pass {
			done = true
			break // redriven messages came back: no need to wait longer
		}
		if !j.Pass {
			passingSince, passLooks = time.Time{}, 0
		} else {
			if passLooks == 0 {
				passingSince = time.Now()
			}
			passLooks++
			// Approximate counts lag: a pass must hold for Settle over
			// two looks at least.
			if w.Settle == 0 || (passLooks >= 2 && time.Since(passingSince) >= w.Settle) {
				res.Pass = true
				break
			}
			res.Reasons = append(res.Reasons, fmt.Sprintf("passing since %s; it must hold for --settle %s", passingSince.UTC().Format(time.RFC3339), w.Settle))
		}
		if time.Now().Add(w.Interval).After(deadline) {
			res.Reasons = append(res.Reasons, fmt.Sprintf("not proven within --wait %s: run mfdlq verify again with a longer --wait", w.Wait))
			res.ToProve = fmt.Sprintf("nothing came back and no check failed, but the checks above had not all held within --wait %s; they must hold on a later look: run mfdlq verify again with a longer --wait", w.Wait)
			break
		}
		if w.Status != nil {
			w.Status(obs, deadline)
		}
		select {
		case <-ctx.Done():
			return res, ErrInterrupted
		case <-time.After(w.Interval):
		}
	}
	res.Verdict = verdictOf(res.Pass, done)
	return res, nil
}

// observe reads the queues' depths, peeks at the DLQ for returned
// messages (unless NoPeek), and reads each destination's metrics.
func (w *Watch) observe(ctx context.Context) (Observation, error) {
	obs := Observation{NoPeek: w.NoPeek, Returned: []Returned{}, At: w.Now(), FIFO: w.DLQ.FIFO}
	if err := sqsapi.Refresh(ctx, w.SQS, w.DLQ); err != nil {
		return obs, fmt.Errorf("verify %s: %w", w.DLQ.Name, err)
	}
	obs.DLQVisible, obs.DLQInFlight, obs.DLQDelayed = w.DLQ.Depth.Visible, w.DLQ.Depth.InFlight, w.DLQ.Depth.Delayed
	if w.Rec.Target != "" {
		w.observeFunction(ctx, &obs)
		if err := w.observeSubscribers(ctx, &obs); err != nil {
			return obs, err
		}
	} else {
		for i, q := range w.queues() {
			d, err := w.observeDest(ctx, q, w.baseline(i))
			if err != nil {
				return obs, err
			}
			obs.Dests = append(obs.Dests, d)
		}
		first := obs.Dests[0]
		obs.DestDelayed = first.Delayed
		obs.DestVisible, obs.DestInFlight, obs.Deleted, obs.Sent, obs.Partial = first.Visible, first.InFlight, first.Deleted, first.Sent, first.Partial
	}
	if obs.DLQVisible > 0 && !w.NoPeek {
		peek, err := sqsapi.Peek(ctx, w.SQS, w.DLQ, sqsapi.PeekOptions{Max: int(min(obs.DLQVisible+10, MaxPeek)), Visibility: peekVisibility, Wait: 1})
		if err != nil {
			return obs, fmt.Errorf("verify %s: %w", w.DLQ.Name, err)
		}
		// Visible again at once, not after their two seconds: the next
		// look then reads the DLQ as a fresh peek would (not past the
		// messages this one hid), and verify leaves nothing hidden.
		if n := sqsapi.Release(context.WithoutCancel(ctx), w.SQS, w.DLQ.URL, peek.Handles); n > 0 && w.Warn != nil {
			w.Warn("%d peeked messages could not be made visible again (SQS did not confirm): back within %ds", n, peekVisibility)
		}
		obs.Peeked = len(peek.Messages)
		obs.Returned = MatchReturned(peek.Messages, w.Rec, w.Now())
	}
	return obs, nil
}

// queues are the destination queues, in the order of Rec.destinations.
func (w *Watch) queues() []*sqsapi.Queue {
	if len(w.Dests) > 0 {
		return w.Dests
	}
	return []*sqsapi.Queue{w.Dest}
}

func (w *Watch) baseline(i int) *Traffic {
	if i < len(w.baselines) {
		return w.baselines[i]
	}
	return nil
}

// observeFunction finds a Lambda target's redriven events in its log
// group by the request ids the journal holds (ReadEvents), from a minute
// before the redrive began (clocks differ) to a minute after the look.
func (w *Watch) observeFunction(ctx context.Context, obs *Observation) {
	if w.Rec.Target != "lambda" || w.Rec.StartedAt.IsZero() || w.Rec.ReturnWindow == nil || w.Rec.ReturnWindow.LogGroup == "" {
		return
	}
	group := w.Rec.ReturnWindow.LogGroup
	if w.Logs == nil {
		obs.Events = &EventsRun{Group: group, Failed: []string{}, Err: "no CloudWatch Logs client"}
		return
	}
	q := EventQuery{IDs: w.Rec.requestIDs()}
	if c := w.Rec.Compacted; c != nil {
		// A big move's journal keeps its older sends as digests: any
		// request id in a line is asked of them, and every moved event
		// is sought.
		attempt := w.Rec.latestAttempt()
		q.Ours = func(id string) bool { return c.Returned(id, attempt) }
		q.Sought = w.Rec.Moved
	}
	obs.Events = ReadEvents(ctx, w.Logs, group, q, w.Rec.StartedAt.Add(-time.Minute), w.Now().Add(time.Minute))
}

// observeSubscribers reads the depth of each subscriber queue that fails
// back to the DLQ, in the order of the return window's Returning.
func (w *Watch) observeSubscribers(ctx context.Context, obs *Observation) error {
	if w.Rec.ReturnWindow == nil {
		return nil
	}
	for _, s := range w.Rec.ReturnWindow.Returning {
		q := &sqsapi.Queue{Name: s.Queue, URL: s.URL}
		if err := sqsapi.Refresh(ctx, w.SQS, q); err != nil {
			return fmt.Errorf("verify subscriber %s: %w", s.Queue, err)
		}
		obs.Subscribers = append(obs.Subscribers, SubscriberDepth{Queue: s.Queue, Depth: q.Depth})
	}
	return nil
}
