package consumer

import (
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// Step is the incident event that records the Lambda consumers of a queue
// the first time a step (contain, inspect, classify) saw them.
const Step = "consumer"

// Inputs are a consumer event's inputs: the step that saw the functions
// first.
type Inputs struct {
	SeenBy string `json:"seen_by"`
}

// Figures are a consumer event's figures: the Lambda functions reading the
// DLQ's source queues as the incident first saw them.
type Figures struct {
	Consumers []Function `json:"consumers"`
}

// Deploy is the fix-deployed check's reading of the incident: which
// functions it saw and when the failures it compares with began.
type Deploy struct {
	// Since is when the failures a fix must postdate began: the first
	// failure of the gated groups, or the previous attempt's redrive.
	Since time.Time
	// SinceText says what Since is, for the refusal.
	SinceText string
	// Baseline is each function as the incident saw it before (by ARN):
	// first seen, or at the previous attempt's redrive.
	Baseline map[string]Function
}

// Deployed tells whether f changed since the failures began: modified
// after Since, or another CodeSha256 or Version than its baseline (some
// deploys, and moto's UpdateFunctionCode, do not move LastModified).
func (d Deploy) Deployed(f Function) bool {
	if !f.LastModified.IsZero() && f.LastModified.After(d.Since) {
		return true
	}
	b, ok := d.Baseline[f.ARN]
	return ok && (b.CodeSha256 != f.CodeSha256 || b.Version != f.Version)
}

// NotDeployed is the one-line refusal for a function that has not changed.
func (d Deploy) NotDeployed(f Function) string {
	return fmt.Sprintf("%s was last changed %s, before %s: the fix is not deployed; deploy it and run again, or pass --force if the fix is not in its code",
		f.Name, f.LastModified.UTC().Format("2006-01-02 15:04 UTC"), d.SinceText)
}

// FunctionsOf decodes the functions recorded in an event's figures: a
// consumer event's, or a redrive event's (the baseline of the next
// attempt). Both types name them "consumers".
func FunctionsOf(ev incident.Event) []Function {
	var f Figures
	if ev.DecodeFigures(&f) != nil {
		return nil
	}
	return f.Consumers
}

// FirstSeen is each function as the incident's consumer events first
// recorded it, by ARN.
func FirstSeen(events []incident.Event) map[string]Function {
	out := map[string]Function{}
	for _, ev := range events {
		if ev.Step != Step {
			continue
		}
		for _, f := range FunctionsOf(ev) {
			if _, ok := out[f.ARN]; !ok {
				out[f.ARN] = f
			}
		}
	}
	return out
}

// When writes a moment the way the refusal names it: "Sunday 22:04" within
// the last week of now, else the date.
func When(t, now time.Time) string {
	t = t.UTC()
	if now.Sub(t) < 6*24*time.Hour && !t.After(now) {
		return t.Format("Monday 15:04")
	}
	return t.Format("2006-01-02 15:04")
}
