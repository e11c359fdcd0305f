package redrive

import (
	"time"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/redrive/window"
	"github.com/mfdlq/mfdlq/selection"
	"github.com/mfdlq/mfdlq/transform"
)

// Inputs are a redrive event's inputs: the request as the operator gave it.
// The JSON keys are the contract of events.jsonl (docs/incident.md); old
// incident directories are read with the same type.
type Inputs struct {
	To   string `json:"to"`
	Rate string `json:"rate"` // --rate as given: a number or "max"
	// Selection is the selection as given; its keys (max, filter,
	// sent_after, sent_before, group) are the ones every redrive event
	// since the first has: old incidents keep rendering.
	selection.Selection
	Canary   int    `json:"canary"`
	Keep     bool   `json:"keep"`
	Native   bool   `json:"native"`
	FromFile string `json:"from_file"`
}

// Figures are a redrive event's figures: what the move did. verify reads
// them (Moved, DestQueue, StartedAt…), the next attempt reads Attempt and
// StartedAt, and the report reads them all.
type Figures struct {
	Moved           int     `json:"moved"`
	Resumed         int     `json:"resumed"`
	Failed          int     `json:"failed"`
	Skipped         int     `json:"skipped"`
	FilterErrors    int     `json:"filter_errors"`
	Returned        int     `json:"returned"`
	PendingDelete   int     `json:"pending_delete"`
	DurationSeconds float64 `json:"duration_seconds"`
	AchievedRate    float64 `json:"achieved_rate"`
	// Rate is the rate asked for in messages per second; 0 is --rate max.
	Rate      float64   `json:"rate"`
	DestQueue string    `json:"dest_queue"`
	DestURL   string    `json:"dest_url"`
	StartedAt time.Time `json:"started_at"`
	Native    bool      `json:"native"`
	Keep      bool      `json:"keep"`
	// Attempt is the fix this move followed (Attempt); 0 in incidents
	// written before attempts were numbered, which means 1.
	Attempt     int `json:"attempt"`
	PeakWorkers int `json:"peak_workers"`
	// Consumers are the destination's Lambda functions as the fix-deployed
	// check read them, the baseline of the next attempt.
	Consumers []consumer.Function `json:"consumers,omitempty"`
	// Destinations are the move's destinations one by one when a shared
	// DLQ's messages each went back to their own source queue (empty for a
	// move to one destination, which DestQueue and DestURL name). verify
	// judges each.
	Destinations []DestFigures `json:"destinations,omitempty"`
	// Sourceless are the messages left in a shared DLQ because they carry
	// no DeadLetterQueueSourceArn (sent to the DLQ directly, or moved by
	// an older SQS): they go only where --to names.
	Sourceless int `json:"sourceless,omitempty"`
	// Outcome is how the move ended (summary.go's outcomes); "" in
	// incidents written before outcomes were recorded, which read as they
	// did: by the counts alone.
	Outcome Outcome `json:"outcome,omitempty"`
	// Halted is why the run stopped before the end, as the summary said
	// it; Error the error that stopped it (OutcomeError).
	Halted string `json:"halted,omitempty"`
	Error  string `json:"error,omitempty"`
	// CanaryBack is how many of the canary came back.
	CanaryBack int `json:"canary_back,omitempty"`
	// Backlog is what the move started from: the DLQ's messages
	// (approximate, as SQS counts them) or the file's lines.
	Backlog int `json:"backlog,omitempty"`
	// Left is how many of the backlog the run left where they were — in
	// the DLQ, or unsent in the file (LeftIn) — the canary's returns
	// included; HiddenLeft are those of Failed that stayed hidden in the
	// DLQ for the whole wait (they reappear after the visibility timeout).
	Left       int    `json:"left,omitempty"`
	LeftIn     string `json:"left_in,omitempty"`
	HiddenLeft int    `json:"hidden_left,omitempty"`
	// Rehidden are messages the move left in the DLQ that were still
	// hidden when it was interrupted at its end: visible again by
	// themselves at RehiddenUntil.
	Rehidden      int       `json:"rehidden,omitempty"`
	RehiddenUntil time.Time `json:"rehidden_until,omitzero"`
	// Transform is what --transform did: the program, the counts and the
	// first before/after examples, redacted; Undo puts the originals back;
	// TransformErrors are the messages it left in the DLQ.
	Transform       *transform.Figures `json:"transform,omitempty"`
	Undo            string             `json:"undo,omitempty"`
	TransformErrors int                `json:"transform_errors,omitempty"`
	// HeldBack are the messages of a FIFO DLQ left in it because an
	// earlier message of their group failed and stayed (mover.Stats).
	HeldBack int `json:"held_back,omitempty"`
	// Idempotency is the consumer's idempotency store and window, and the
	// messages beyond it the move met (nil: no store found).
	Idempotency *window.Figures `json:"idempotency,omitempty"`
	// Dedupe is what --dedupe left in the DLQ (nil without it).
	Dedupe *dedupe.Figures `json:"dedupe,omitempty"`
	// Provenance is who ran the move and what stamp its messages carry.
	Provenance *provenance.Figures `json:"provenance,omitempty"`
}

// Where a move's unsent messages are (Figures.LeftIn).
const (
	LeftInDLQ  = "dlq"
	LeftInFile = "file"
)

// DestFigures are one destination's figures in a move to several.
type DestFigures struct {
	Queue  string `json:"queue"`
	URL    string `json:"url"`
	Moved  int    `json:"moved"`
	Failed int    `json:"failed"`
	// Consumers are this destination's Lambda functions as the
	// fix-deployed check read them.
	Consumers []consumer.Function `json:"consumers,omitempty"`
}

// Duration is how long the move took.
func (f Figures) Duration() time.Duration {
	return time.Duration(f.DurationSeconds * float64(time.Second))
}

// FixInputs are a fix event's inputs: what the operator changed before a
// redrive (redrive --fixed, or the runbook's question). redrive owns them
// because a fix is what numbers its attempts.
type FixInputs struct {
	Change string `json:"change"`
}

// FixFigures are a fix event's figures: the attempt the fix starts.
type FixFigures struct {
	Attempt int `json:"attempt,omitempty"`
}

// FiguresOf reads a redrive event's figures leniently: a figure of another
// type (a file mfdlq did not write) is left at zero, the others are read.
func FiguresOf(ev incident.Event) Figures {
	var f Figures
	_ = ev.DecodeFigures(&f)
	return f
}

// InputsOf reads a redrive event's inputs leniently, as FiguresOf does.
func InputsOf(ev incident.Event) Inputs {
	var in Inputs
	_ = ev.DecodeInputs(&in)
	return in
}

// FixOf is the change text a fix event recorded, or "".
func FixOf(ev incident.Event) string {
	var in FixInputs
	_ = ev.DecodeInputs(&in)
	return in.Change
}
