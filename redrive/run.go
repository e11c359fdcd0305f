package redrive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"maps"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive/canary"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/movetask"
	"github.com/mfdlq/mfdlq/redrive/window"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/transform"
)

// NativePoll is how often a native move asks SQS how far the task got.
var NativePoll = 2 * time.Second

// runner is one carrying-out of a plan: its id in the journal and the lease,
// and its clocks.
type runner struct {
	env *Env
	ws  *incident.Workspace
	p   *Plan
	id  string
	// rateFrom is when the run asked for the lease: a --rate's clock
	// starts there, so the lease's read-back is the rate's first second.
	// rateStart is where the achieved rate counts from (RateStart; zero:
	// the move's start).
	rateFrom, rateStart time.Time
	// step is the run's --transform (nil without one).
	step *transform.Step
	// beyond counts the messages beyond the idempotency window as the
	// move meets them (nil: no window known).
	beyond *window.BeyondCount
	// moved, when set, is called once the mover's last phase returned,
	// its last delete answered (moveGated gives the lease back there).
	moved func()
}

// Run carries the plan out, after the question: it takes the DLQ's lease,
// records a new fix, and moves — with SQS's move task (Req.Native, unless
// the plan's FIFO doubt says otherwise) or with the mover, the canary
// first. It appends the redrive event and returns the summary; an error
// is returned only when nothing moved and no summary was made (the lease
// is held, the journal cannot be opened). A failure during the move is the
// summary's Err.
func Run(ctx context.Context, env *Env, ws *incident.Workspace, p *Plan) (*Summary, error) {
	tracef("run")
	defer profileRun()()
	// Whatever the guard read ahead is stale now: Run reads afresh.
	p.reads = nil
	r := &runner{env: env, ws: ws, p: p, id: NewRunID(env.Now()), rateFrom: time.Now()}
	if p.early != nil {
		// The lease was taken ahead (lease_early.go) under this run's id,
		// and the rate's clock starts where it was asked for.
		r.id, r.rateFrom = p.early.run, p.early.asked
	}
	// A console redrive may have started while the question (or the
	// alarms) waited: the DLQ's tasks are looked at again. With nothing
	// to wait for between the lease and that look (no alarms, no
	// take-over question), the look runs during the lease's read-back.
	var tasks *answer[*movetask.RunningTask]
	if p.tasksListed && env.WhenOK == nil && !p.Req.TakeOver {
		dlq := p.Source.Queue
		tasks = ahead(func() (*movetask.RunningTask, error) { return movetask.ListRunning(ctx, env.SQS, dlq) })
	}
	if r.gated() {
		return r.moveGated(ctx, tasks)
	}
	ctx, release, err := holdLease(ctx, env, p, r.id)
	if err != nil {
		return nil, err
	}
	defer release()
	tracef("lease held")
	if err := r.afterLease(ctx, tasks); err != nil {
		return nil, err
	}
	if p.Req.Native {
		return r.native(ctx)
	}
	return r.move(ctx, nil)
}

// afterLease is what a run does once it holds the lease and before it
// moves: --when-ok's wait, the look at the DLQ's move tasks (made during
// the read-back: tasks), and the new fix's event.
func (r *runner) afterLease(ctx context.Context, tasks *answer[*movetask.RunningTask]) error {
	p, env := r.p, r.env
	if err := r.waitWhenOK(ctx); err != nil {
		return err
	}
	if p.tasksListed {
		p.reads = &guardReads{tasks: tasks}
		err := checkMoveTasks(ctx, env, p, true)
		p.reads = nil
		if err != nil {
			return err
		}
	}
	if p.NewFix {
		ev, err := fixEvent(env, p)
		if err != nil {
			return err
		}
		if err := r.ws.Append(ev); err != nil {
			return err
		}
	}
	return nil
}

// move runs the canary (if any) and then the rest, journaling every step.
// With a gate (moveGated) the mover's workers receive before it opens, and
// do nothing else until it does: the run's entry in the journal is
// written when it opens, and a run whose gate failed returns its error,
// having sent, journaled and recorded nothing.
func (r *runner) move(ctx context.Context, gate func() error) (*Summary, error) {
	p, env := r.p, r.env
	// A file replay keeps the deleted lines' digests: the file still holds
	// them; so does a --transform, whose undo puts back only the originals
	// the journal says were deleted (journal.ReadUndo), compacted or not.
	jw, state, err := journal.Open(r.ws.Path(incident.JournalFile), p.Attempt, p.Source.File != nil || p.Transform != nil)
	if errors.Is(err, journal.ErrInUse) {
		// Another run of this incident directory is moving (a gated run
		// gets here before its lease is confirmed): a refusal, as a held
		// lease is.
		return nil, &Refusal{Reason: err.Error()}
	}
	if err != nil {
		return nil, err
	}
	// The run's entry: who ran it ("who retried what").
	runEntry := func() error {
		return jw.Write(journal.Entry{Time: env.Now().UTC(), Run: r.id, Attempt: p.Attempt, Op: journal.OpRun, Operator: env.OperatorARN})
	}
	if gate == nil {
		if err := runEntry(); err != nil {
			return nil, errors.Join(err, jw.Close())
		}
	}
	defer func() {
		if err := jw.Close(); err != nil {
			// The moves are done and written; only their trip to the disk
			// failed, so a power cut now could cost resends.
			env.Warn("%s: %v", incident.JournalFile, err)
		}
	}()
	sel, err := p.selectFunc()
	if err != nil {
		return nil, err
	}
	step, closeArchive, err := r.transformStep()
	if err != nil {
		return nil, err
	}
	defer closeArchive()
	defer pathMemory(p)()
	r.step = step
	if p.Window.Counts() {
		r.beyond = &window.BeyondCount{}
		// Without --beyond-window the plan's sample showed none beyond the
		// window: one the move meets stays in the DLQ, unasked (keep).
		sel = r.beyond.Selector(p.Window, p.Req.BeyondWindow != window.BeyondMove, env.Now, sel)
	}
	started, wall := env.Now(), time.Now()
	r.rateStart = mover.RateStart(p.Req.Rate, r.rateFrom, wall)
	prog := &phases{env: env, total: p.Bound, start: r.rateStart}
	var opened time.Time // when the gate opened: the move phase starts there
	if gate != nil {
		lease := gate
		gate = sync.OnceValue(func() error {
			if err := lease(); err != nil {
				return err
			}
			// The move starts now: the rate's clock (at most a bucket
			// before it, as without a gate) and the progress count from
			// here, not from the receives made during the read-back.
			opened = time.Now()
			r.rateStart = mover.RateStart(p.Req.Rate, r.rateFrom, opened)
			prog.mu.Lock()
			prog.start = r.rateStart
			prog.mu.Unlock()
			return runEntry()
		})
	}
	base := r.options(sel, state, jw, prog)
	if step != nil {
		base.Transform = stepAdapter{step}
	}
	base.Gate = gate
	var total mover.Stats
	if p.Canary > 0 {
		ck := r.canaryCheck()
		ck.Before(ctx)
		st, err := r.runWatched(ctx, r.canaryOptions(base), min(p.Canary*len(p.Dests), p.Bound), prog)
		ck.Sent()
		if r.beyond != nil {
			r.beyond.End()
		}
		total = st
		back := 0
		if err == nil && ctx.Err() == nil && st.Halted == "" {
			back, total.Halted, err = r.checkCanary(ctx, ck, state, st)
			total.Returned += back
		}
		if err != nil || ctx.Err() != nil || total.Halted != "" || back > 0 {
			return r.done(ctx, started, wall, total, back, err)
		}
		// The rest's rate starts after the canary's wait.
		base.RateFrom = time.Time{}
	}
	st, err := r.runWatched(ctx, base, p.Bound-total.Handled(), prog)
	if gate != nil {
		// A run that received nothing never reached its gate: the lease
		// is confirmed (or refused) here, before anything is recorded.
		if err := gate(); err != nil {
			return nil, err
		}
		// The move phase (the event's duration) starts when the lease
		// was confirmed, not with the receives made while it was read
		// back: it stays the figure it was.
		wall = later(wall, opened)
	}
	if r.moved != nil {
		r.moved()
	}
	all := sumStats(total, st)
	if p.Canary > 0 {
		// What the canary left in the DLQ (skipped, without a source, from
		// another queue) the rest looks at again: counted once.
		all.Skipped, all.Sourceless, all.OtherSource = max(st.Skipped, total.Skipped), max(st.Sourceless, total.Sourceless), max(st.OtherSource, total.OtherSource)
	}
	return r.done(ctx, started, wall, all, 0, err)
}

func (r *runner) runMover(ctx context.Context, opts mover.Options, limit int, prog *phases) (mover.Stats, error) {
	opts.Max = limit
	m, err := mover.NewMover(r.mover(), opts)
	if err != nil {
		return mover.Stats{}, err
	}
	prog.base = prog.last
	tracef("mover start")
	st, err := m.Run(ctx)
	prog.finish()
	return st, err
}

// canaryCheck is the canary's looks built from the plan: the DLQ its
// returns land in and the destination queues.
func (r *runner) canaryCheck() *canary.Check {
	ck := &canary.Check{SQS: r.env.SQS, CW: r.env.CW, Warn: r.env.Warn, Info: r.env.Info,
		DLQ: r.returnsTo(), PerSource: r.p.PerSource, Wait: r.p.CanaryWait}
	for i := range r.p.Dests {
		if d := &r.p.Dests[i]; d.Target == nil {
			ck.Dests = append(ck.Dests, d.Queue)
		}
	}
	return ck
}

// returnsTo is the queue the canary's returns land in: the DLQ, or, from
// a file, the destination's own DLQ (nil when it has none).
func (r *runner) returnsTo() *sqsapi.Queue {
	if r.p.Source.File != nil {
		return r.p.Source.ReturnsTo
	}
	return r.p.Source.Queue
}

// checkCanary says what the canary is waiting for, then lets it judge
// (canary.Check.Judge) and names what came back.
func (r *runner) checkCanary(ctx context.Context, ck *canary.Check, state *journal.State, st mover.Stats) (back int, halt string, err error) {
	p, env := r.p, r.env
	dlq := ck.DLQ
	if dlq == nil {
		// From a file, returns land in the destination's own DLQ.
		env.Warn("canary: %s has no DLQ to look in: moving the rest", p.Dest().Queue.Name)
		return 0, "", nil
	}
	if p.PerSource {
		env.Info("canary: %s; waiting %s for their consumers before moving the rest", canaryText(p, st), p.CanaryWait)
	} else {
		env.Info("canary: %d moved; waiting %s for %s's consumer before moving the rest", st.Moved, p.CanaryWait, p.Dest().Queue.Name)
	}
	to := map[string]int{}
	for url, d := range st.Dests {
		to[url] = d.Moved
	}
	res, halt, err := ck.Judge(ctx, canary.Sent{Moved: st.Moved, To: to, Taken: r.taken(st),
		IsReturn: func(m *sqsjson.Message) bool { return mover.IsReturn(state, m) }})
	if err == nil && res.Failed() {
		env.Warn("%s", res.Reason(dlq.Name))
		for _, l := range backText(p, res.BySource) {
			env.Warn("canary: %s", l)
		}
		halt = ""
	}
	return res.Back, halt, err
}

// taken is how many messages the canary took out of the DLQ: sent or
// resumed and deleted (none with --keep or from a file).
func (r *runner) taken(st mover.Stats) int {
	if r.p.Source.File != nil || r.p.Req.Keep {
		return 0
	}
	return st.Moved + st.Resumed - st.PendingDelete
}

// native lets SQS move the messages (StartMessageMoveTask) and follows
// the task; Ctrl-C cancels it. In doubt on FIFO it moves with the mover.
func (r *runner) native(ctx context.Context) (*Summary, error) {
	p, env := r.p, r.env
	if p.Follow != nil {
		return r.follow(ctx)
	}
	if p.FIFODoubt != "" {
		env.Warn("--native on FIFO: %s; moving with mfdlq's own mover instead, which sends with fresh mfdlq-<MessageId> deduplication ids", p.FIFODoubt)
		p.Req.Native = false
		return r.move(ctx, nil)
	}
	started, wall := env.Now(), time.Now()
	prog := &phases{env: env, total: p.Backlog, start: wall}
	dest := p.Dest().Queue
	if p.PerSource {
		// Without a DestinationArn SQS returns each message to its own
		// source queue: what a shared DLQ needs.
		dest = nil
		env.Info("--native: message move task without a destination: SQS returns each message to its own source queue")
	}
	st, err := movetask.Native(ctx, env.SQS, p.Source.Queue, dest, int32(p.Req.Rate), NativePoll, func(t movetask.TaskStatus) {
		prog.setTotal(t.ToMove)
		prog.update(mover.Stats{Moved: int(t.Moved)})
	})
	prog.finish()
	var notStarted *movetask.NotStartedError
	if errors.As(err, &notStarted) && p.Source.Queue.FIFO && !sqsapi.IsUnsupportedOrDenied(err) && sqsapi.ErrorCode(err) != "error" {
		// SQS refused a task for this FIFO queue and lists none running.
		env.Warn("--native on FIFO: %v; moving with mfdlq's own mover instead (fresh mfdlq-<MessageId> deduplication ids)", err)
		p.Req.Native = false
		return r.move(ctx, nil)
	}
	if err != nil {
		return nil, err
	}
	env.Info("message move task %s", st.Status)
	stats := mover.Stats{Moved: int(st.Moved)}
	if st.Status == movetask.TaskFailed {
		stats.LastError = st.Failure
		stats.Halted = "message move task failed: " + st.Failure
	}
	return r.done(ctx, started, wall, stats, 0, nil)
}

// done makes the summary and appends the redrive event.
func (r *runner) done(ctx context.Context, started, wall time.Time, st mover.Stats, canaryBack int, runErr error) (*Summary, error) {
	tracef("moved")
	dur := time.Since(wall)
	s := &Summary{Stats: st, Moved: st.Moved + st.Resumed, Started: started, Duration: dur, CanaryBack: canaryBack, Err: runErr, Attempt: r.p.Attempt}
	if r.step != nil {
		// The step counts each message once across the canary and the
		// rest, and its failure texts are redacted: they stand for the
		// mover's, which count per phase.
		f := r.step.Figures()
		s.Transform, s.Undo = &f, r.p.UndoCommand(r.ws)
		s.Stats.TransformErrors, s.Stats.TransformErrorTexts = f.Failed, f.FailureTexts
	}
	if r.beyond != nil {
		s.Beyond = r.beyond.Total(r.p.Req.BeyondWindow != window.BeyondMove)
	}
	// At a --rate the achieved rate counts from the rate's clock (at the
	// lease request, at most a bucket before the move), so that it
	// compares with --rate.
	since := dur
	if !r.rateStart.IsZero() {
		since = time.Since(r.rateStart)
	}
	if since > 0 {
		s.Achieved = float64(s.Moved) / since.Seconds()
	}
	if lost := leaseLost(ctx); lost != nil {
		s.LeaseLost = lost
	}
	s.Outcome = outcomeOf(s, ctx.Err() != nil)
	ev, err := redriveEvent(r.env, r.p, s)
	if err != nil {
		return s, err
	}
	if err := r.ws.Append(ev); err != nil {
		return s, err
	}
	return s, nil
}

// The room a --transform or --dedupe move gets a message, beyond the 48
// bytes mover.MemoryLimit counts for the digests: what it keeps for every
// message it sends — the originals' digests (archive.Originals) and the
// journal's payload digests with --transform, the journal's key digests
// with --dedupe, some 64 and 32 bytes — and as much again, so that the
// collector is not held at the limit. Under a limit that left them out it
// ran almost without pause as the move grew (300,000 messages with both,
// through fauxqs: 293 µs of CPU a message, 32 % of the bare loop; with
// 64 + 32 bytes 202 µs, 62 %; with these 152 µs, 74 %, peak RSS 150 MiB:
// docs/redrive-figures.md).
const (
	transformBytesPerMessage = 128
	dedupeBytesPerMessage    = 64
)

// pathMemory raises the heap's soft limit the caller set for the move
// (cmd's tuneGC: mover.MemoryLimit) by what p's --transform and --dedupe
// keep a message, for the move's length; the returned func puts it back.
// No limit set (GOMEMLIMIT or GOGC given, or a caller that sets none):
// nothing changes.
func pathMemory(p *Plan) func() {
	per := int64(0)
	if p.Transform != nil {
		per += transformBytesPerMessage
	}
	if p.Dedupe != nil {
		per += dedupeBytesPerMessage
	}
	cur := debug.SetMemoryLimit(-1)
	if per == 0 || cur == math.MaxInt64 || os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return func() {}
	}
	debug.SetMemoryLimit(cur + per*int64(max(p.Backlog, 0)))
	return func() { debug.SetMemoryLimit(cur) }
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// phases turns the mover's figures into Moments across phases (the
// canary, then the rest): the figures of an earlier phase are added.
type phases struct {
	mu    sync.Mutex
	env   *Env
	total int
	start time.Time
	base  mover.Stats
	last  mover.Stats
}

func (ph *phases) update(st mover.Stats) {
	if st.Moved > 0 {
		tracef("first batch moved")
	}
	if ph.env.Progress == nil {
		return
	}
	// The mover calls from any worker: one at a time.
	ph.mu.Lock()
	defer ph.mu.Unlock()
	ph.last = sumStats(ph.base, st)
	ph.env.Progress(Moment{Stats: ph.last, Total: ph.total, Start: ph.start})
}

// setTotal sets the total a message move task moves once SQS says it
// (ApproximateNumberOfMessagesToMove is 0 until the task starts).
func (ph *phases) setTotal(n int64) {
	if n <= 0 {
		return
	}
	ph.mu.Lock()
	defer ph.mu.Unlock()
	ph.total = int(n)
}

func (ph *phases) finish() {
	if ph.env.Done != nil {
		ph.env.Done()
	}
}

// sumStats adds the figures of a later phase b to a.
func sumStats(a, b mover.Stats) mover.Stats {
	a.Moved += b.Moved
	a.Resumed += b.Resumed
	a.Skipped += b.Skipped
	a.FilterErrors += b.FilterErrors
	for _, t := range b.FilterErrorTexts {
		if len(a.FilterErrorTexts) < 3 && !slices.Contains(a.FilterErrorTexts, t) {
			a.FilterErrorTexts = append(a.FilterErrorTexts, t)
		}
	}
	a.TransformErrors += b.TransformErrors
	for _, t := range b.TransformErrorTexts {
		if len(a.TransformErrorTexts) < 3 && !slices.Contains(a.TransformErrorTexts, t) {
			a.TransformErrorTexts = append(a.TransformErrorTexts, t)
		}
	}
	a.Failed += b.Failed
	a.HeldBack += b.HeldBack
	a.Unseen, a.Stamps = a.Unseen+b.Unseen, a.Stamps.Plus(b.Stamps)
	a.Sourceless += b.Sourceless
	a.OtherSource += b.OtherSource
	if len(b.Dests) > 0 {
		// a's map may be an earlier phase's: never change it in place.
		a.Dests = maps.Clone(a.Dests)
		if a.Dests == nil {
			a.Dests = map[string]mover.DestStats{}
		}
	}
	for url, d := range b.Dests {
		t := a.Dests[url]
		t.Moved += d.Moved
		t.Failed += d.Failed
		a.Dests[url] = t
	}
	a.Returned += b.Returned
	a.PendingDelete += b.PendingDelete
	a.Hidden = b.Hidden // a moment's figure, not a count
	a.Rehidden += b.Rehidden
	if b.RehiddenUntil.After(a.RehiddenUntil) {
		a.RehiddenUntil = b.RehiddenUntil
	}
	a.RehiddenLeft = a.RehiddenLeft || b.RehiddenLeft
	a.Workers, a.Behind = b.Workers, b.Behind
	a.PeakWorkers = max(a.PeakWorkers, b.PeakWorkers)
	if b.Halted != "" {
		a.Halted = b.Halted
	}
	if b.LastError != "" {
		a.LastError = b.LastError
	}
	return a
}

// NewRunID names one run in the journal.
func NewRunID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
