// Package mover moves messages from a DLQ to a queue or a target at a
// bounded rate, at least once, never losing one: receive, send, journal,
// delete — in that order, so a run killed at any moment is resumed from
// the journal without a resend. It owns the workers and their adaptive
// number (Controller), the retries of each call, the routing of a shared
// DLQ's messages (Router), the selection (Selection) and the figures
// (Stats). It never imports redrive: the protocol builds its Options from
// the plan (redrive's mover_options.go).
package mover

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"golang.org/x/time/rate"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/receipts"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/redrive/retry"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Options configure one move.
type Options struct {
	Source, Dest *sqsapi.Queue
	// Target, when set, is where messages are sent instead of the queue
	// Dest: a Lambda function, SNS topic or EventBridge bus. Dest then
	// only names it (Name) and keys the journal (URL: the target's ARN).
	Target Target
	// Rate is messages per second; 0 means as fast as the queues allow.
	Rate float64
	// RateFrom is when the rate's clock starts, its bucket empty: N
	// messages are sent no sooner than N/Rate seconds after it. Zero is
	// when the mover is made. A run that waits for something of its own
	// before it may send (the lease's read-back) passes when that wait
	// began, so the wait is the rate's first second, not one more.
	RateFrom time.Time
	// Workers, when > 0, fixes how many receive→send→delete pipelines
	// (batches in flight) run at once; 0 lets the mover pick, up to
	// MaxWorkers (see Controller). After a SIGKILL at most 10 × the most
	// workers that ran are duplicated.
	Workers int
	// MaxWorkers caps the adaptive number of workers (0: DefaultMaxWorkers).
	MaxWorkers int
	// Max bounds the messages moved (sent and deleted, or failed).
	Max int
	// Backlog bounds the distinct DLQ messages looked at: the depth when the
	// run started, so messages that come back do not loop forever.
	Backlog int
	// Keep copies: sent messages are made visible again in the DLQ.
	Keep bool
	// Route, when set, picks each message's destination (a shared DLQ):
	// Dest then only names the move; a message it routes nowhere stays.
	Route *Router
	// EachMax, when > 0, moves at most this many to each destination (a
	// canary per destination): the others are hidden until the run ends.
	EachMax int
	// Select picks the messages to move; nil moves all.
	Select func(*sqsjson.Message) (bool, error)
	// Transform, when set, repairs each picked message before it is sent
	// (transform.Step): the copy goes in the original's place, and the
	// originals are kept durably before the batch is sent.
	Transform Transformer
	// Dedupe, when set, moves the first message of each --key and leaves
	// the others in the DLQ (dedupe.Claims, shared by a run's phases).
	Dedupe *dedupe.Claims
	// Stamp, when set, is the provenance every sent message carries (a
	// message attribute, package provenance), in place of any earlier
	// stamp; a message with no room for it goes as it was, counted in
	// Stats.Stamps. Nil sends the messages' attributes as they are.
	Stamp *provenance.Stamp
	// Visibility (seconds) hides a received message while it is moved.
	Visibility int32
	// Wait is the receive long poll in seconds.
	Wait int32
	// MaxBacklog slows the move while the destination holds more visible
	// messages than this; 0 disables it.
	MaxBacklog int64
	// MaxReturned halts the run when this many moved messages came back to
	// the DLQ (the circuit breaker); 0 disables it.
	MaxReturned int
	// RunID identifies this run in the journal.
	RunID string
	// Attempt numbers the fix this run redrives after (1: the first); the
	// journal records it on every entry.
	Attempt int
	Journal *journal.Writer
	State   *journal.State
	Retry   *retry.Policy
	// Gate, when set, is called by a worker with each batch it received
	// before it does anything else with it: until it returns, the batch is
	// only held (hidden), so a run may receive while it does not yet know
	// it may send (its lease being read back); how much it holds is
	// bounded (gate.go). An error stops the run with
	// that error: the batch, and any received after, is made visible again
	// at once, and nothing is sent or journaled. It must be cheap once it
	// has returned (a sync.OnceValue).
	Gate func() error
	// OnBatch is called after every batch with the figures so far, and
	// after an empty receive while the run waits for hidden messages, from
	// any worker.
	OnBatch func(Stats)
	// Clock is what every wait and timestamp of the move reads (nil: the
	// wall clock); tests pass an receipts.Fake.
	Clock receipts.Clock
}

// Stats are a move's figures.
type Stats struct {
	Moved         int `json:"moved"`          // sent by this run (deleted unless --keep)
	Resumed       int `json:"resumed"`        // sent by an earlier run, deleted by this one
	Skipped       int `json:"skipped"`        // not selected: made visible again
	FilterErrors  int `json:"filter_errors"`  // --filter failed on them: left in the DLQ, made visible again
	Failed        int `json:"failed"`         // left in the DLQ after a 4xx or exhausted retries
	Returned      int `json:"returned"`       // moved messages seen back in the DLQ
	PendingDelete int `json:"pending_delete"` // sent, delete failed: the next run deletes them
	// Hidden is how many messages the DLQ holds that no worker holds and no
	// receive returns: hidden by a killed earlier run or by a receive whose
	// answer was lost. The run waits for them to reappear (at most the
	// visibility timeout); 0 once it is not waiting.
	Hidden int `json:"hidden"`
	// Unseen are those of Failed that stayed hidden for the whole wait at
	// the end of the run: they reappear after their visibility timeout.
	Unseen int `json:"unseen,omitempty"`
	// Rehidden is how many messages the run left in the DLQ were still
	// hidden at its end: a receive of its own whose answer was lost hid
	// them again, or SQS did not confirm their release. The run waits
	// until RehiddenUntil, when they are visible by themselves (Rehidden
	// stays, to say so); a Ctrl-C during that wait sets RehiddenLeft.
	Rehidden      int       `json:"rehidden,omitempty"`
	RehiddenUntil time.Time `json:"rehidden_until,omitzero"`
	RehiddenLeft  bool      `json:"rehidden_left,omitempty"`
	// Workers is how many batches may be in flight now; PeakWorkers the
	// most so far, which bounds the duplicates of a SIGKILL (10 each).
	Workers     int `json:"workers"`
	PeakWorkers int `json:"peak_workers"`
	// Behind says why a --rate is not reached ("" when it is).
	Behind    string        `json:"behind,omitempty"`
	Elapsed   time.Duration `json:"-"`
	Halted    string        `json:"halted,omitempty"` // why the run stopped before the end
	LastError string        `json:"last_error,omitempty"`
	// FilterErrorTexts are the first distinct errors of --filter.
	FilterErrorTexts []string `json:"filter_error_texts,omitempty"`
	// TransformErrors are the messages --transform failed on (or made
	// invalid): left in the DLQ, made visible again; the texts are the
	// first distinct reasons.
	TransformErrors     int      `json:"transform_errors,omitempty"`
	TransformErrorTexts []string `json:"transform_error_texts,omitempty"`
	// HeldBack are the messages of a FIFO DLQ left in it, untouched,
	// because an earlier message of their group failed and stayed: sent,
	// they would reach the consumer out of order (fifo_hold.go).
	HeldBack int `json:"held_back,omitempty"`
	// Sourceless and OtherSource are the skipped messages a Router left in
	// the DLQ: without a DeadLetterQueueSourceArn, or from a queue the move
	// does not send to.
	Sourceless  int `json:"sourceless,omitempty"`
	OtherSource int `json:"other_source,omitempty"`
	// Stamps are what became of the provenance stamps of the messages
	// sent (all zero without Options.Stamp).
	Stamps provenance.Counts `json:"stamps"`
	// Dests are the figures per destination URL of a routed move.
	Dests map[string]DestStats `json:"dests,omitempty"`
}

// Handled is the messages this run is done with.
func (s Stats) Handled() int { return s.Moved + s.Resumed + s.Failed }

// Mover runs one move. Build it with NewMover.
type Mover struct {
	c       SQS
	o       Options
	limiter *rate.Limiter
	ctl     *controller
	// polls is the context of the long polls: cancelled once the backlog
	// is in hand (see cancelIdlePolls).
	polls       context.Context
	cancelPolls context.CancelFunc
	// attrs are the system attributes a receive asks for (systemAttributes).
	attrs []types.MessageSystemAttributeName

	mu       sync.Mutex
	stats    Stats
	reserved int // messages promised to a batch in progress
	// t is every DLQ message's state in this run: seen (toward the
	// backlog), held by a worker (latest receipt handle), parked (seen
	// again and hidden until the run ends), deleting, owed (let go of
	// unfinished: see owe), done (skipped, returned, failed or moved).
	t        *receipts.Table
	deferred map[string]deferral      // batches that ran out of retries, per message
	dests    map[string]*sqsapi.Queue // the destination of each held message a Router routed
	quota    map[string]int           // messages picked per destination URL (EachMax)
	lastNew  time.Time                // when a message unseen in this run last came
	drained  bool                     // the DLQ has nothing more for this run
	probed   bool                     // the filter has judged a first batch
	tprobed  bool                     // the transform has judged a first batch
	keys     map[string]heldKey       // --dedupe: the key each message in flight holds
	blocked  map[string]bool          // FIFO groups a failed message holds back (fifo_hold.go)
	changed  chan struct{}            // closed when messages are let go of (see changes)
	fatal    error                    // stops every worker
	backlog  backlogCache             // the destination's depth, read at most every 2 s
	started  time.Time
	spawned  int           // workers started so far: the most that may be receiving
	ended    chan struct{} // closed when a worker found the run over
	isEnded  bool
	letGo    bool      // the run made a message visible again or parked one
	pollsOff time.Time // when the idle long polls were cancelled (zero: never)
	// hiddenSince is when the drain check first found messages in the DLQ
	// that no worker holds (zero: none).
	hiddenSince time.Time
	// owedUntil is when the last message owed (t) shows again, at the
	// latest: the run is not drained while one may come back (see owe).
	owedUntil time.Time
	// lost is when what no one holds for a reason the summary gives may
	// stay hidden until: a receive whose answer was lost, a release SQS
	// did not confirm (not a delete that failed: that one is pending
	// delete). The run's end waits for it (awaitHidden).
	lost receipts.Lost
	// unseen is how many messages of the backlog, never received, the DLQ
	// still held hidden when the quiet wait ran out.
	unseen int
	// gate is what the workers hold while Options.Gate is closed (gate.go).
	gate gateState
	// receiving is how many receives claim let go and that have not come
	// back; untriaged how many messages came back and were not looked at
	// (triage) yet (see claim).
	receiving, untriaged int
	covered              bool // claim holds a worker for them: wake it (wakeCovered)
}

// NewMover checks o and returns its mover.
func NewMover(c SQS, o Options) (*Mover, error) {
	if o.Source == nil || o.Dest == nil || o.Journal == nil || o.State == nil {
		return nil, fmt.Errorf("redrive: source, destination, journal and state are required")
	}
	if o.Workers < 0 || o.Workers > MaxWorkersLimit || o.MaxWorkers < 0 || o.MaxWorkers > MaxWorkersLimit {
		return nil, fmt.Errorf("redrive: workers must be between 1 and %d", MaxWorkersLimit)
	}
	if o.MaxWorkers == 0 {
		o.MaxWorkers = DefaultMaxWorkers
	}
	if o.Retry == nil {
		o.Retry = retry.Default()
	}
	if o.Visibility <= 0 {
		o.Visibility = 30
	}
	if o.Wait <= 0 {
		o.Wait = 2
	}
	if o.Clock == nil {
		o.Clock = receipts.System
	}
	lim := rate.NewLimiter(rate.Inf, batchSize)
	if o.Rate > 0 {
		lim = rate.NewLimiter(rate.Limit(o.Rate), rateBurst(o.Rate))
		// Start with an empty bucket: no burst above the rate, even in the
		// first second, so N messages take N/rate seconds from RateFrom.
		lim.AllowN(RateStart(o.Rate, o.RateFrom, o.Clock.Now()), lim.Burst())
	}
	ctl := newController(controllerOptions{Fixed: o.Workers, Max: o.MaxWorkers, Rate: o.Rate, Now: o.Clock.Now})
	// The table's digests grow to the backlog: sized once, not rehashed
	// as the move goes.
	m := &Mover{c: c, o: o, limiter: lim, ctl: ctl, ended: make(chan struct{}), t: receipts.NewTable(o.Backlog), attrs: systemAttributes(&o),
		lost:  receipts.Lost{Visibility: time.Duration(o.Visibility) * time.Second},
		dests: map[string]*sqsapi.Queue{}, quota: map[string]int{}}
	m.setGate()
	return m, nil
}

// waitRate waits until n messages may be sent at the rate, on the move's
// clock (WaitN would read the wall clock).
func (m *Mover) waitRate(ctx context.Context, n int) error {
	now := m.o.Clock.Now()
	r := m.limiter.ReserveN(now, n)
	if !r.OK() {
		return fmt.Errorf("redrive: %d messages exceed the rate's burst %d", n, m.limiter.Burst())
	}
	if !receipts.Sleep(m.o.Clock, r.DelayFrom(now), ctx.Done()) {
		r.CancelAt(m.o.Clock.Now())
		return ctx.Err()
	}
	return nil
}

// MemoryLimit is the Go heap's soft limit for a move of backlog messages:
// 48 MiB for the SDK, the HTTP connections and the batches in flight, plus
// 48 bytes a message for what grows with the backlog — the run's digests
// (receipts.Table: 8 to 16 bytes), the journal's (8 to 16, 24 while its
// table doubles): a rerun that finds nothing reads a million digests under
// a 48 MiB heap (60.6 MiB RSS measured). Below the limit the collector
// runs rarely (GOGC=400); near it, as often as it must. The digests hold
// no pointers, so the collector does not scan them.
func MemoryLimit(backlog int) int64 {
	return 48<<20 + 48*int64(max(backlog, 0))
}

const batchSize = 10

// rateBurst is the bucket of a --rate: a tenth of a second's messages, at
// least a batch.
func rateBurst(r float64) int { return max(batchSize, int(r/10)) }

// RateStart is where the clock of a move at r msg/s that starts at start
// counts from when it was set at from (Options.RateFrom): from, but no
// earlier than one bucket before start, since the bucket holds no more
// (at 10 msg/s a second, at 1,000 a tenth). The achieved rate counts
// from it; zero from, or none before start, is start.
func RateStart(r float64, from, start time.Time) time.Time {
	if r <= 0 || from.IsZero() || !from.Before(start) {
		return start
	}
	return receipts.Later(from, start.Add(-time.Duration(float64(rateBurst(r))/r*float64(time.Second))))
}

// maxReceiveFailures is how many receives in a row may fail, each after
// its own retries, before the run gives up.
const maxReceiveFailures = 10

// Run moves until the bound is reached, the DLQ has nothing more, the
// circuit breaker trips, or ctx is cancelled (Ctrl-C). Once ctx is cancelled
// no new receive starts, and the sends and deletes already started finish
// with a context of their own before Run returns. A non-nil error means the
// run could not go on (an unreadable DLQ, a destination refusing every
// send, a journal that cannot be written).
func (m *Mover) Run(ctx context.Context) (Stats, error) {
	m.started = m.o.Clock.Now()
	m.lastNew = m.started
	m.polls, m.cancelPolls = context.WithCancel(ctx)
	defer m.cancelPolls()
	m.runWorkers(ctx)
	m.awaitHidden(ctx, m.unpark())
	m.countUnsent()
	m.countUnseen()
	st := m.Stats()
	st.Hidden = 0 // the run waits for nothing any more
	if ctx.Err() != nil && st.Halted == "" {
		st.Halted = "interrupted"
	}
	return st, m.fatal
}

// Stats returns the figures so far.
func (m *Mover) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.stats
	if st.Dests != nil {
		st.Dests = maps.Clone(st.Dests)
	}
	st.Elapsed = receipts.Since(m.o.Clock, m.started)
	cs := m.ctl.Status()
	st.Workers, st.PeakWorkers, st.Behind = cs.Limit, cs.Peak, cs.Behind
	return st
}

// runWorkers starts a worker each time the controller's limit rises above
// the workers started, and returns when every worker has stopped. A worker
// whose index is at or above the limit finishes its batch and waits.
func (m *Mover) runWorkers(ctx context.Context) {
	exits := make(chan struct{})
	running, spawned := 0, 0
	for {
		changed := m.ctl.Changed()
		for ; spawned < m.ctl.Limit(); spawned++ {
			m.mu.Lock()
			m.spawned = spawned + 1
			m.mu.Unlock()
			running++
			go func(i int) {
				m.work(ctx, i)
				exits <- struct{}{}
			}(spawned)
		}
		if running == 0 {
			return
		}
		select {
		case <-changed:
		case <-exits:
			running--
		}
	}
}

// await holds worker i while the limit is at or below i; false when the
// run is over.
func (m *Mover) await(ctx context.Context, i int) bool {
	for {
		changed := m.ctl.Changed()
		if i < m.ctl.Limit() {
			return true
		}
		select {
		case <-changed:
		case <-m.ended:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// received is what one receive brought.
type received struct {
	msgs  []types.Message
	err   error
	stop  bool
	short bool // a short poll: an empty answer proves little
}

// work is one worker, a pipeline of three stages: it receives the next
// batch while it sends the current one, and deletes the previous one while
// it sends the current one (its deleter). Only the send stage can
// duplicate after a crash (a batch sent, its 'sent' entries not yet
// written), and each worker has at most one send in flight, so a SIGKILL
// duplicates at most 10 × Workers messages. The receive hides messages and
// the delete removes only messages whose 'sent' entry is written: neither
// adds to that bound. With a limit that changes (Controller), worker i
// runs while i is below the limit; the sends in flight never exceed the
// most workers started, at most the cap. A receive is cancelled only by
// Ctrl-C or, once the backlog is in hand, as cancelIdlePolls allows: one
// cancelled after SQS answered leaves its messages hidden for the
// visibility timeout.
func (m *Mover) work(ctx context.Context, i int) {
	deletes := make(chan func())
	deleterDone := make(chan struct{})
	go func() {
		defer close(deleterDone)
		for del := range deletes {
			if del != nil {
				del()
				m.settle(ctx)
			}
			if m.o.OnBatch != nil {
				m.o.OnBatch(m.Stats())
			}
		}
	}()
	// The worker returns once its last deletes are done.
	defer func() { close(deletes); <-deleterDone }()
	next := make(chan received, 1)
	fetch := func() {
		if !m.await(ctx, i) {
			next <- received{stop: true}
			return
		}
		gated := m.awaitGate(ctx)
		n, wait := m.claimOrHold(ctx)
		if n == 0 || m.waitBacklog(ctx) != nil {
			if gated {
				m.heldForGate(nil)
			}
			if n > 0 {
				m.endReceive(0)
			}
			next <- received{stop: true}
			return
		}
		msgs, cancelled, err := m.receive(ctx, n, wait)
		if gated {
			m.heldForGate(msgs)
		}
		m.endReceive(len(msgs))
		next <- received{msgs: msgs, err: err, short: wait == 0 || cancelled}
	}
	// The receive stage is one goroutine for the whole run, asked for each
	// batch: a goroutine per receive would grow a fresh stack through the
	// SDK's middleware every time (a tenth of the CPU at 0 ms latency).
	// Each request yields exactly one result, and the loop below asks again
	// only after it took the last one, so none is outstanding when it returns.
	want := make(chan struct{}, 1)
	go func() {
		for range want {
			fetch()
		}
	}()
	defer close(want)
	want <- struct{}{}
	failures := 0
	for r := range next {
		switch {
		case r.stop:
			return
		case r.err != nil && ctx.Err() != nil:
			// Ctrl-C or the run is done: claim says which.
		case r.err != nil:
			// A receive that failed after its retries hides nothing for
			// long: try again after a pause, unless SQS refused it (4xx)
			// or it keeps failing.
			if failures++; !retry.Retryable(r.err) || failures >= maxReceiveFailures {
				m.fail(fmt.Errorf("receive from %s: %w", m.o.Source.Name, r.err))
				return
			}
			receipts.Sleep(m.o.Clock, receivePause, nil)
		case len(r.msgs) == 0:
			failures = 0
			changed := m.changes()
			drained := m.checkDrained(ctx)
			if m.o.OnBatch != nil {
				m.o.OnBatch(m.Stats())
			}
			if !drained && r.short {
				// No busy loop while the last batches finish: poll again
				// when one of them is done, or after a while.
				select {
				case <-changed:
				case <-m.o.Clock.After(200 * time.Millisecond):
				}
			}
		default:
			failures = 0
			want <- struct{}{}
			deletes <- m.handle(ctx, r.msgs)
			continue
		}
		want <- struct{}{}
	}
}

// receivePause is the wait after a receive that failed after its retries.
const receivePause = time.Second

// holdOn is claim's answer while the DLQ is drained but batches are still
// held: their sends or deletes may fail and leave messages to take again.
const holdOn = -1

// claimOrHold is claim, waiting (without a call to SQS) while it says
// holdOn: until a batch lets go of its messages, or the run ends.
func (m *Mover) claimOrHold(ctx context.Context) (int, int32) {
	for {
		changed := m.changes()
		n, wait := m.claim(ctx)
		if n != holdOn {
			return n, wait
		}
		select {
		case <-changed:
		case <-m.ended:
		case <-ctx.Done():
		}
	}
}

// claim returns how many messages the next receive may ask for (0 stops
// the worker) and its long poll: none near the end of the backlog or once
// the bound is spoken for, so the last receives do not wait out a poll.
func (m *Mover) claim(ctx context.Context) (n int, wait int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer func() {
		if n > 0 {
			m.receiving++ // until endReceive
		}
	}()
	left := m.o.Max - m.stats.Handled() - m.reserved
	allSeen := m.o.Backlog > 0 && m.t.SeenCount() >= m.o.Backlog
	// going: the run goes on, so a worker may wait (holdOn) for others.
	going := ctx.Err() == nil && m.fatal == nil && m.stats.Halted == "" && !m.isEnded
	switch {
	case m.drained && m.t.Held() > 0 && going:
		// The last batches may yet let go of messages unfinished (owe):
		// the run is drained only once they are done.
		return holdOn, 0
	case ctx.Err() != nil, m.fatal != nil, m.drained, m.stats.Halted != "",
		m.o.Max-m.stats.Handled() <= 0, allSeen && m.t.Held() == 0 && m.t.Owed() == 0:
		m.cancelIdlePolls()
		if !m.isEnded {
			m.isEnded = true
			close(m.ended)
		}
		return 0, 0
	case allSeen && m.t.Owed() == 0 && going:
		// Every message of the backlog was received and none is owed: a
		// receive can find only what this run does not move. The run ends
		// when the batches still held are done (the case above), unless
		// one lets go of a message unfinished: wait for them, without a
		// receive and a look at the DLQ's depth after each empty answer.
		m.cancelIdlePolls()
		return holdOn, 0
	case m.o.Backlog > 0 && m.receiving*batchSize+m.untriaged > 0 && m.receiving*batchSize+m.untriaged >= m.o.Backlog-m.t.SeenCount() && going:
		// The receives in flight and the batches received but not yet
		// looked at may hold the rest of the backlog: wait for them
		// (endReceive, triage) rather than race them for its last
		// messages — at the end of a move every other worker's receive
		// came back empty and looked at the DLQ's depth.
		m.covered = true
		return holdOn, 0
	case left <= 0 || m.o.Backlog > 0 && m.o.Backlog-m.t.SeenCount() <= 2*batchSize*m.spawned:
		// Every worker started may have a receive out: with twice their
		// batches left, a long poll could find the queue empty and hold
		// the run for its whole wait.
		m.cancelIdlePolls()
		return min(batchSize, max(left, 1)), 0
	case !m.pollsOff.IsZero():
		// The long polls were cancelled, then a message was owed: m.polls
		// is done, so only short polls can take it.
		return min(batchSize, left), 0
	}
	return min(batchSize, left), m.o.Wait
}

// cancelIdlePolls cancels the long polls in flight once the backlog is in
// hand — every message of it received, or the DLQ found to hold nothing
// more for the run — so that
// the run's last batches do not wait out a poll of an empty queue. c.mu
// is held.
//
// Cancelling a long poll is not free: SQS does not see the client go; it
// finishes the poll, and a message that becomes visible before the poll's
// wait ends, or an answer already on its way, is hidden for the visibility
// timeout with a receipt handle no one holds. So the polls are cancelled
// only while the run has made no message visible again and parked none
// (no skipped, failed, returned or deferred message, nothing it would
// release at the end, no --keep): all such a cancelled poll can take is a message
// that arrived in the DLQ in the run's last seconds, one this run would
// not move. It hides that message for --visibility seconds, never loses
// it. unpark waits for the polls' end before it releases anything.
func (m *Mover) cancelIdlePolls() {
	// Not when only the bound is spoken for (a canary, --max): the DLQ
	// still holds the rest, so a poll in flight is answered at once, and
	// cancelling it would leave that answer's messages hidden with no one
	// holding them (a canary of 10 on a DLQ of 2,500 hid about 70 for the
	// visibility timeout after its run ended).
	inHand := m.drained || m.o.Backlog > 0 && m.t.SeenCount() >= m.o.Backlog
	if !inHand || m.letGo || m.o.Keep || m.t.Parked() > 0 || !m.pollsOff.IsZero() || m.cancelPolls == nil {
		return
	}
	m.pollsOff = m.o.Clock.Now()
	m.cancelPolls()
}

func (m *Mover) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fatal == nil {
		m.fatal = err
	}
}

// checkDrained decides, after an empty receive, whether the DLQ has
// nothing more for this run: every message left in it is one a worker
// holds or one this run decided on and hid, and none it owes (a send or
// delete that failed) may come back; or nothing new came for longer than
// a message hidden by a crashed run takes to reappear, counted from the
// last moment this run itself may have hidden one (mayReappear): a lost
// receive answer hides a batch for the visibility timeout, and so do the
// next ones if they are lost too. The count of
// ours leaves out messages whose delete is under way (SQS may already have
// removed them), and it is not trusted when a delete started while the
// depth was read: a message counted as ours that SQS no longer counts
// would hide one left in the DLQ.
func (m *Mover) checkDrained(ctx context.Context) bool {
	m.mu.Lock()
	epoch := m.t.Epoch()
	ours := int64(m.t.Held() - m.t.Deleting() + m.t.Parked())
	m.mu.Unlock()
	d, err := m.depth(ctx, m.o.Source.URL)
	m.mu.Lock()
	defer m.mu.Unlock()
	stable := err == nil && m.t.Epoch() == epoch
	since := receipts.Later(m.lastNew.Add(m.visibility()), m.mayReappear())
	quiet := receipts.Since(m.o.Clock, since) > time.Duration(2*m.o.Wait)*time.Second+5*time.Second
	if (quiet || (stable && d.Total() <= ours && m.t.Owed() == 0)) && !m.drained {
		m.unseen = 0
		if quiet && err == nil {
			m.noteUnseen(d.Total() - ours)
		}
		m.drained = true
	}
	// Messages in the DLQ that are not ours are hidden by someone else.
	// A receive that has answered but whose batch is not marked held yet
	// looks the same for a moment: report only an excess that lasts.
	excess := 0
	if stable && !m.drained {
		excess = int(max(d.Total()-ours, 0))
	}
	switch {
	case excess == 0:
		m.hiddenSince, m.stats.Hidden = time.Time{}, 0
	case m.hiddenSince.IsZero():
		m.hiddenSince = m.o.Clock.Now()
	case receipts.Since(m.o.Clock, m.hiddenSince) >= time.Second:
		m.stats.Hidden = excess
	}
	return m.drained
}

// settle runs after a batch's deletes. When no worker holds a message any
// more, every worker is receiving: if the DLQ has nothing left for the run
// (the backlog read at the start can count more than the receives will
// find), the long polls still waiting are cancelled rather than waited out.
func (m *Mover) settle(ctx context.Context) {
	m.mu.Lock()
	idle := m.t.Held() == 0 && !m.drained && m.pollsOff.IsZero() && !m.letGo && !m.o.Keep && m.t.Parked() == 0
	m.mu.Unlock()
	if !idle || !m.checkDrained(ctx) {
		return
	}
	m.mu.Lock()
	m.cancelIdlePolls()
	m.mu.Unlock()
}

// endReceive notes a receive claim let go that came back with n messages
// (not looked at yet: triage), and wakes the workers claim holds.
func (m *Mover) endReceive(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.receiving--
	m.untriaged += n
	m.wakeCovered()
}

// wakeCovered wakes the workers claim holds for the receives in flight
// and the batches not looked at yet, when there are any. m.mu is held.
func (m *Mover) wakeCovered() {
	if m.covered && m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
	m.covered = false
}

// changes returns a channel closed the next time a worker lets go of
// messages (a batch done, released or parked).
func (m *Mover) changes() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.changed == nil {
		m.changed = make(chan struct{})
	}
	return m.changed
}

// unpark makes the messages this run hid visible again: a message the
// run did not move leaves it as it found it. It returns how many it could
// not make visible.
func (m *Mover) unpark() int {
	m.mu.Lock()
	parked := m.t.TakeParked()
	off := m.pollsOff
	m.mu.Unlock()
	msgs := make([]sqsjson.Message, len(parked))
	for i, p := range parked {
		msgs[i] = sqsjson.Message{MessageId: p.ID, ReceiptHandle: p.Handle}
	}
	if len(msgs) > 0 && !off.IsZero() {
		// A cancelled long poll lives on at SQS until its wait ends: it
		// would take what is released now and hide it again.
		receipts.Sleep(m.o.Clock, off.Add(time.Duration(m.o.Wait)*time.Second+time.Second).Sub(m.o.Clock.Now()), nil)
	}
	return m.release(msgs)
}

// awaitHidden ends the run only when the messages it leaves in the DLQ are
// visible: while a message this run may have hidden can still be hidden
// (m.lost: a receive whose answer was lost, a release SQS did not
// confirm), and the last release missed some or the DLQ shows messages in
// flight, it waits until they are visible again by themselves — at most
// the visibility timeout — rather than exit 0 with them hidden (a verify
// right after would count them as not yet consumed). Ctrl-C stops the
// wait, and the stats say until when they stay hidden.
func (m *Mover) awaitHidden(ctx context.Context, missed int) {
	m.mu.Lock()
	until := m.lost.Until()
	m.mu.Unlock()
	if !m.o.Clock.Now().Before(until) {
		return
	}
	if ctx.Err() != nil {
		if missed > 0 {
			m.mu.Lock()
			m.stats.Rehidden, m.stats.RehiddenUntil, m.stats.RehiddenLeft = missed, until.UTC(), true
			m.mu.Unlock()
		}
		return
	}
	n := missed
	if n == 0 {
		d, err := m.depth(ctx, m.o.Source.URL)
		if err != nil || d.InFlight == 0 {
			return
		}
		n = int(d.InFlight)
	}
	m.mu.Lock()
	m.stats.Hidden, m.stats.Rehidden = n, n
	m.mu.Unlock()
	if m.o.OnBatch != nil {
		m.o.OnBatch(m.Stats())
	}
	// until is when the receive that may have hid them failed, at the
	// latest; SQS's timer can end a moment later. A margin, then up to
	// five looks at the count before the run says they are visible.
	m.mu.Lock()
	m.stats.RehiddenUntil = until.Add(receipts.Margin).UTC()
	m.mu.Unlock()
	visible := receipts.AwaitVisible(ctx, m.o.Clock, until.Add(receipts.Margin), 5, func() bool {
		if d, err := m.depth(ctx, m.o.Source.URL); err != nil || d.InFlight == 0 {
			return false
		}
		m.mu.Lock()
		m.stats.RehiddenUntil = m.o.Clock.Now().Add(receipts.Margin).UTC()
		m.mu.Unlock()
		return true
	})
	m.mu.Lock()
	if !visible {
		m.stats.RehiddenLeft = true
		m.mu.Unlock()
		return
	}
	m.stats.Hidden = 0
	m.mu.Unlock()
}
