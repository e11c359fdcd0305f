package triage

import (
	"cmp"
	"fmt"
	"strings"
	"time"
)

// The bounds of a Request, and its defaults (Request.WithDefaults).
const (
	DefaultWindow = 30 * time.Minute
	DefaultSample = 10 * time.Second
	DefaultPeek   = 100
	// MaxPeek bounds the peek: a triage is a first look, not an export.
	MaxPeek = 1000
	// MaxLogGroups bounds the log groups searched (FilterLogEvents per
	// message and group).
	MaxLogGroups = 10
	// logIDs is how many messages the logs part looks for: one per group
	// first (logsearch.Pick), as mfdlq logs does by default.
	logIDs = 3
	// logMargin widens each message's window in the logs, as mfdlq logs'
	// default --margin.
	logMargin = 30 * time.Minute
	// changesMargin widens the failures' window for changes, as mfdlq
	// changes' default --margin.
	changesMargin = 30 * time.Minute
	// maxTrailEvents bounds the CloudTrail read: 10 pages of 50, five
	// seconds at two lookups a second — "changes if cheap". A busier window
	// is cut with a warning in changes.json; mfdlq changes reads it whole.
	maxTrailEvents = 500
)

// Request is one triage: plain data, so the command, the Lambda handler
// and the MCP tool build the same thing and Validate checks it once.
type Request struct {
	// Queue is the DLQ: a name, URL or ARN.
	Queue string `json:"queue"`
	// Region resolves a bare queue name; "" for the client's.
	Region string `json:"region,omitempty"`
	// Window is how far back contain's trend looks (5m-336h).
	Window time.Duration `json:"window"`
	// Sample is the span of contain's fallback sampling when CloudWatch
	// has no datapoints (1s-5m).
	Sample time.Duration `json:"sample"`
	// Peek is how many messages the harmless peek collects (1-MaxPeek).
	Peek int `json:"peek"`
	// LogGroups are the consumer's CloudWatch Logs groups; none: the
	// groups of the functions whose mappings read the source
	// (/aws/lambda/NAME), when any does.
	LogGroups []string `json:"log_groups,omitempty"`
	// NoChanges skips the CloudTrail read.
	NoChanges bool `json:"no_changes,omitempty"`
	// Force peeks at a DLQ that has its own redrive policy: each receive
	// counts toward its maxReceiveCount and can push messages onward.
	Force bool `json:"force,omitempty"`
	// Command is the command line recorded in the incident's events.
	Command []string `json:"-"`
}

// WithDefaults fills the zero values with the defaults.
func (r Request) WithDefaults() Request {
	r.Window = cmp.Or(r.Window, DefaultWindow)
	r.Sample = cmp.Or(r.Sample, DefaultSample)
	r.Peek = cmp.Or(r.Peek, DefaultPeek)
	return r
}

// Validate checks the request's values, each error naming the flag that
// fixes it; call it on WithDefaults' result.
func (r Request) Validate() error {
	switch {
	case strings.TrimSpace(r.Queue) == "":
		return fmt.Errorf("--queue is required: the DLQ's name, URL or ARN")
	case r.Window < 5*time.Minute || r.Window > 336*time.Hour:
		return fmt.Errorf("--window must be between 5m and 336h, got %s", r.Window)
	case r.Sample < time.Second || r.Sample > 5*time.Minute:
		return fmt.Errorf("--sample must be between 1s and 5m, got %s", r.Sample)
	case r.Peek < 1 || r.Peek > MaxPeek:
		return fmt.Errorf("--peek must be between 1 and %d, got %d", MaxPeek, r.Peek)
	case len(r.LogGroups) > MaxLogGroups:
		return fmt.Errorf("at most %d --log-group, got %d", MaxLogGroups, len(r.LogGroups))
	}
	for _, g := range r.LogGroups {
		if strings.TrimSpace(g) == "" {
			return fmt.Errorf("--log-group is empty: name a log group such as /aws/lambda/orders")
		}
	}
	return nil
}
