package redrive

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/untrusted"
)

// done says what the summary means and maps its outcome to the exit
// status: interrupted, halted or failed messages are not a success.
func (o *RedriveOptions) done(p *redrivestep.Plan, s *redrivestep.Summary) error {
	d := o.deps
	dlq, dest := p.Source.Queue, p.DestName()
	st := s.Stats
	for _, l := range s.DestLines(p) {
		d.Infof("%s", l)
	}
	o.printDedupeSummary(p)
	if l := s.ProvenanceLine(p); l != "" {
		d.Infof("%s", l)
	}
	if s.Outcome == redrivestep.OutcomeCanaryBack {
		return cmdutil.CheckFailedf("canary: %s came back to %s: the fix is not the right one — back to step 2 (mfdlq classify)", plural.Of(s.CanaryBack, "moved message"), dlq.Name)
	}
	if st.Returned > 0 {
		d.Warnf("%s came back to %s after attempt %d and were not moved again: once a new fix is deployed, record it with --fixed \"what changed\" to move them in attempt %d", plural.Of(st.Returned, "message"), dlq.Name, s.Attempt, s.Attempt+1)
	}
	if st.Behind != "" && o.Rate > 0 && s.Achieved < 0.97*o.Rate {
		d.Warnf("--rate %g not reached (%.1f msg/s): %s", o.Rate, s.Achieved, st.Behind)
	}
	if err := o.outcomeError(s); err != nil {
		return err
	}
	d.Infof("moved %s to %s in %s (%.1f msg/s)", plural.Of(s.Moved, "message"), dest, s.Duration.Round(100*time.Millisecond), s.Achieved)
	if st.Rehidden > 0 {
		d.Infof("%s left in %s: hidden at the move's end (%s); it waited until %s, when they are visible again",
			plural.Of(st.Rehidden, "message"), dlq.Name, rehiddenWhy, st.RehiddenUntil.Format("15:04:05 UTC"))
	}
	if l := s.WindowLine(p); l != "" && s.LeftUnasked(p) {
		return cmdutil.CheckFailedf("%s", l)
	} else if l != "" {
		d.Infof("%s", l)
	}
	if p.Source.File != nil {
		d.NextStep("watch %s's consumer; %s is unchanged", dest, o.FromFile)
		return nil
	}
	d.NextStep("mfdlq verify --queue %s", dlq.Name)
	return nil
}

// rehiddenWhy is why messages a move left in the DLQ can be hidden at its
// end.
const rehiddenWhy = "a receive whose answer was lost hid them again, or SQS did not confirm their release"

// outcomeError is the error, and exit status, of an outcome that is not
// a success; it warns first of what is left to do.
func (o *RedriveOptions) outcomeError(s *redrivestep.Summary) error {
	d := o.deps
	st := s.Stats
	if st.RehiddenLeft {
		d.Warnf("%s left in the DLQ stay hidden until %s (%s): they reappear by themselves, nothing is lost",
			plural.Of(st.Rehidden, "message"), st.RehiddenUntil.Format("15:04:05 UTC"), rehiddenWhy)
	}
	if st.PendingDelete > 0 {
		d.Warnf("%s sent but not deleted (the delete failed): run the same command again to delete them (they will not be sent twice)", plural.Of(st.PendingDelete, "message"))
	}
	for _, t := range st.FilterErrorTexts {
		d.Warnf("--filter failed: %s", untrusted.Shorten(untrusted.Terminal(t), 300))
	}
	for _, t := range st.TransformErrorTexts {
		d.Warnf("--transform failed: %s", untrusted.Shorten(untrusted.Terminal(t), 300))
	}
	if st.HeldBack > 0 {
		d.Warnf("%s held back in the DLQ: an earlier message of their FIFO group failed and stays there, and sent they would reach the consumer out of order; deal with that one and run the same command again", plural.Of(st.HeldBack, "message"))
	}
	if s.Transform != nil {
		f := s.Transform
		d.Infof("transform: %d changed, %d unchanged, %d failed (left in the DLQ)", f.Changed, f.Unchanged, f.Failed)
		if f.Unsigned > 0 {
			d.Infof("transform: %s sent without their signature fields", plural.Of(f.Unsigned, "SNS envelope"))
		}
		if s.Undo != "" {
			d.Infof("undo: %s", untrusted.Terminal(s.Undo))
		}
	}
	switch s.Outcome {
	case redrivestep.OutcomeError:
		// The exit status follows the error (5: a queue deleted, 4:
		// denied); the line says what had moved by then.
		return fmt.Errorf("%w; %s had moved before it stopped (each one is in %s)", s.Err, plural.Of(s.Moved, "message"), incident.JournalFile)
	case redrivestep.OutcomeInterrupted:
		d.Infof("interrupted: run the same command again to finish the move")
		return cmdutil.ErrInterrupted
	}
	switch l, refused := s.OutcomeLine(); {
	case refused:
		return cmdutil.Refusedf("%s", l)
	case l != "":
		return cmdutil.CheckFailedf("%s", l)
	}
	return nil
}

// printSummary writes the summary: a JSON line of type summary, or a table.
func (o *RedriveOptions) printSummary(p *redrivestep.Plan, s *redrivestep.Summary) error {
	d := o.deps
	st := s.Stats
	dur, achieved := redrivestep.Round2(s.Duration.Seconds()), redrivestep.Round2(s.Achieved)
	f := p.Dedupe.Figures()
	if d.JSONOutput() {
		return d.PrintJSONLine(dedupeSummaryLine{s.Line(), f})
	}
	t := cmdutil.TableData{Headers: []string{"MOVED", "RESUMED", "SKIPPED", "FILTER ERRORS", "FAILED", "RETURNED", "DURATION", "RATE"}}
	durText, rateText := fmt.Sprintf("%.1fs", dur), fmt.Sprintf("%.1f/s", achieved)
	if d.IO.OutTTY {
		// Words on a terminal: "0.0/s" after moving nothing reads as a
		// stalled move.
		durText, rateText = cmdutil.SecondsText(dur), "-"
		if s.Moved > 0 {
			rateText = fmt.Sprintf("%.1f messages/s", achieved)
		}
	}
	t.Rows = append(t.Rows, []string{fmt.Sprint(s.Moved), fmt.Sprint(st.Resumed), fmt.Sprint(st.Skipped), fmt.Sprint(st.FilterErrors),
		fmt.Sprint(st.Failed), fmt.Sprint(st.Returned), durText, rateText})
	if f != nil {
		t.Headers = append(t.Headers, "DUPLICATES LEFT", "NO KEY")
		t.Rows[0] = append(t.Rows[0], fmt.Sprint(f.Duplicates), fmt.Sprint(f.NoKey))
	}
	return d.PrintTable(t)
}

// redriveProgress draws a bar on a terminal's stderr, or JSON lines of
// type progress with --output json, at most a few times a second.
type redriveProgress struct {
	d          *cmdutil.Deps
	mu         sync.Mutex
	shown      time.Time
	visibility int32   // --visibility: the longest a hidden message stays away
	rate       float64 // --rate (0: max)
	last       redrivestep.Moment
	drawn      bool
}

func (p *redriveProgress) update(m redrivestep.Moment) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = m
	p.draw(false)
}

// draw shows p.last; force skips the throttle (the final state).
func (p *redriveProgress) draw(force bool) {
	st, d := p.last.Stats, p.d
	json := d.JSONOutput()
	every := 200 * time.Millisecond
	if json {
		every = time.Second
	}
	if (!force && time.Since(p.shown) < every) || (!json && (!d.IO.ErrTTY || d.Global.Quiet)) {
		return
	}
	p.shown = time.Now()
	done, total := st.Moved+st.Resumed, p.last.Total
	el := time.Since(p.last.Start).Seconds()
	r := float64(done) / max(el, 0.001)
	if json {
		_ = d.PrintJSONLine(p.last.Line(el, r))
		return
	}
	eta := "?"
	if r > 0 {
		eta = (time.Duration(float64(total-done)/r) * time.Second).Round(time.Second).String()
	}
	width := 30
	fill := width * min(done, total) / max(total, 1)
	wait := ""
	if st.Hidden > 0 {
		// Not stuck: messages hidden by a killed run or a lost receive
		// answer come back after their visibility timeout.
		wait = fmt.Sprintf(" · waiting up to %ds for %s to reappear", p.visibility, plural.Of(st.Hidden, "hidden message"))
	}
	if st.Behind != "" {
		wait += fmt.Sprintf(" · below --rate %g: %s", p.rate, st.Behind)
	}
	if total == 0 && done == 0 {
		// A move task's total is 0 until SQS starts it: not "0/0".
		fmt.Fprintf(d.IO.ErrOut, "\r\x1b[K[%s] starting%s", strings.Repeat("░", width), wait)
		p.drawn = true
		return
	}
	fmt.Fprintf(d.IO.ErrOut, "\r\x1b[K[%s%s] %d/%d · %.1f msg/s · %d in flight · ETA %s%s", strings.Repeat("█", fill), strings.Repeat("░", width-fill), done, total, r, st.Workers, eta, wait)
	p.drawn = true
}

// finish draws the final state of a phase and ends its line.
func (p *redriveProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		p.draw(true)
		fmt.Fprintln(p.d.IO.ErrOut)
		p.drawn = false
	}
}

// tuneGC trades memory for CPU during a move, unless GOGC or GOMEMLIMIT
// say otherwise: the collector runs when the heap has grown by 4× its live
// size rather than 2× — at --rate max a move shares the CPU with the HTTP
// and JSON work of every call, and the default collector cost about a
// tenth of the rate (docs/redrive.md) — but no later than at
// the plan's MemoryLimit, which bounds the process's memory.
func tuneGC(p *redrivestep.Plan) {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(p.MemoryLimit())
	}
}
