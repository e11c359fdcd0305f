package redrive

import (
	"fmt"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
)

// done says what the summary means (its lines are the step's:
// redrive/end_lines.go) and maps its outcome to the exit status:
// interrupted, halted or failed messages are not a success.
func (o *RedriveOptions) done(p *redrivestep.Plan, s *redrivestep.Summary) error {
	d := o.deps
	for _, l := range s.HeadLines(p) {
		d.Infof("%s", l)
	}
	if l := s.CanaryBackLine(p); l != "" {
		return cmdutil.CheckFailedf("%s", l)
	}
	if err := o.outcomeError(p, s); err != nil {
		return err
	}
	for _, l := range s.MovedLines(p) {
		d.Infof("%s", l)
	}
	if l := s.WindowLine(p); l != "" && s.LeftUnasked(p) {
		return cmdutil.CheckFailedf("%s", l)
	} else if l != "" {
		d.Infof("%s", l)
	}
	if p.Source.File != nil {
		d.NextStep("watch %s's consumer; %s is unchanged", p.DestName(), o.FromFile)
		return nil
	}
	d.NextStep("mfdlq verify --queue %s", p.Source.Queue.Name)
	return nil
}

// outcomeError is the error, and exit status, of an outcome that is not
// a success; it says first what is left to do (Summary.Notes).
func (o *RedriveOptions) outcomeError(p *redrivestep.Plan, s *redrivestep.Summary) error {
	o.say(s.Notes(p, o.Rate))
	switch s.Outcome {
	case redrivestep.OutcomeError:
		// The exit status follows the error (5: a queue deleted, 4:
		// denied); the line says what had moved by then.
		return fmt.Errorf("%w; %s had moved before it stopped (each one is in %s)", s.Err, plural.Of(s.Moved, "message"), incident.JournalFile)
	case redrivestep.OutcomeInterrupted:
		o.deps.Infof("interrupted: run the same command again to finish the move")
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

// draw shows p.last (redrive.Moment's Bar or Line); force skips the
// throttle (the final state).
func (p *redriveProgress) draw(force bool) {
	d := p.d
	json := d.JSONOutput()
	every := 200 * time.Millisecond
	if json {
		every = time.Second
	}
	if (!force && time.Since(p.shown) < every) || (!json && (!d.IO.ErrTTY || d.Global.Quiet)) {
		return
	}
	p.shown = time.Now()
	el := time.Since(p.last.Start).Seconds()
	if json {
		_ = d.PrintJSONLine(p.last.Line(el, p.last.Rate(el)))
		return
	}
	fmt.Fprintf(d.IO.ErrOut, "\r\x1b[K%s", p.last.Bar(el, p.visibility, p.rate))
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

// say writes the step's lines on stderr: warnings, and news.
func (o *RedriveOptions) say(lines []redrivestep.EndLine) {
	for _, l := range lines {
		if l.Warn {
			o.deps.Warnf("%s", l.Text)
		} else {
			o.deps.Infof("%s", l.Text)
		}
	}
}
