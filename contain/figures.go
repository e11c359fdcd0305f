package contain

import (
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Inputs are a contain event's inputs: what the operator asked for.
type Inputs struct {
	Source         string `json:"source"`
	Window         string `json:"window"`
	Action         string `json:"action"` // pause, cap, resume or ""
	CapConcurrency int    `json:"cap_concurrency"`
	Mapping        string `json:"mapping"`
	DryRun         bool   `json:"dry_run"`
}

// Figures are a measuring contain event's figures: the vital signs of
// contain.json, flat, for events.jsonl.
type Figures struct {
	Visible     int64   `json:"visible"`
	InFlight    int64   `json:"in_flight"`
	Trend       string  `json:"trend"`
	TrendFrom   float64 `json:"trend_from"`
	TrendTo     float64 `json:"trend_to"`
	TrendSource string  `json:"trend_source"`
	Mappings    int     `json:"mappings"`
	// The source's figures, when a source was found.
	Source                   string   `json:"source,omitempty"`
	SourceVisible            int64    `json:"source_visible,omitempty"`
	AgeOfOldestSeconds       *float64 `json:"age_of_oldest_seconds,omitempty"`
	NormalAgeOfOldestSeconds *float64 `json:"normal_age_of_oldest_seconds,omitempty"`
	sqsapi.ExpiryFigures
	// The mapping change made in the same run, if any.
	MappingAction string `json:"mapping_action,omitempty"`
	MappingDryRun bool   `json:"mapping_dry_run,omitempty"`
}

// Figures flattens a result into its event's figures.
func (rep *Result) Figures() Figures {
	f := Figures{
		Visible: rep.DLQ.Visible, InFlight: rep.DLQ.InFlight, Trend: rep.DLQ.Direction,
		TrendFrom: rep.DLQ.From, TrendTo: rep.DLQ.To, TrendSource: rep.DLQ.Source,
		Mappings: len(rep.Mappings), ExpiryFigures: sqsapi.ExpiryFiguresOf(rep.OldestExpiry),
	}
	if s := rep.Source; s != nil {
		f.Source, f.SourceVisible = s.Queue, s.Visible
		f.AgeOfOldestSeconds, f.NormalAgeOfOldestSeconds = s.AgeOfOldest, s.NormalAge
	}
	if rep.Change != nil {
		f.MappingAction, f.MappingDryRun = rep.Change.Action, rep.Change.DryRun
	}
	return f
}

// ChangeFigures are the figures of the contain event a mapping change
// appends on its own: what --resume-mapping later restores from.
type ChangeFigures struct {
	MappingChange *lambdaapi.MappingChange `json:"mapping_change,omitempty"`
}

// Changes are the mapping changes recorded by the contain events among
// events, oldest first: what lambdaapi.Recorded reads.
func Changes(events []incident.Event) ([]lambdaapi.MappingChange, error) {
	var out []lambdaapi.MappingChange
	for _, ev := range events {
		if ev.Step != incident.StepContain {
			continue
		}
		var f ChangeFigures
		if err := ev.DecodeFigures(&f); err != nil {
			return nil, err
		}
		if f.MappingChange != nil {
			out = append(out, *f.MappingChange)
		}
	}
	return out, nil
}
