// Package changes is the second half of runbook step 3: what changed around
// the first failure. It reads the account's CloudTrail event history over
// the incident's time range (Range), keeps the writes that can change how a message is
// processed — on the resources tied to this queue (its consumers, their
// roles, the queues, the queues' KMS key) and deploy-like ones anywhere in
// the account — and drops the noise with a count and a reason; it reads the
// alarms that changed state and the consumer's metrics beside the DLQ's
// arrivals, and names the nearest change. What it finds is evidence beside
// the messages' content, never a verdict on them: classify decides.
package changes

import (
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
)

// Verdict is what the range shows, in one word.
type Verdict string

// The verdicts, most telling first.
const (
	// VerdictChange: a related or deploy-like change came before the first
	// failure, within the range.
	VerdictChange Verdict = "change"
	// VerdictAlarm: no change, but a dependency's alarm fired around the
	// first failure — evidence for transient.
	VerdictAlarm Verdict = "dependency-alarm"
	// VerdictQuiet: the trail was read and nothing changed before the
	// first failure.
	VerdictQuiet Verdict = "quiet"
	// VerdictUnknown: the trail could not be read.
	VerdictUnknown Verdict = "unknown"
)

// Relation is why an event was kept.
type Relation string

// The relations, in the order events are listed.
const (
	// Related events touched a resource tied to this queue.
	Related Relation = "related"
	// Deploy events are deploy-like anywhere in the account.
	Deploy Relation = "deploy"
)

// Event is one kept CloudTrail event.
type Event struct {
	ID       string    `json:"event_id"`
	Time     time.Time `json:"time"`
	Name     string    `json:"name"`               // plain: UpdateFunctionCode
	RawName  string    `json:"raw_name,omitempty"` // as CloudTrail wrote it, when it carried an API version
	Source   string    `json:"source"`             // lambda.amazonaws.com
	User     string    `json:"user"`               // who made the call
	Resource string    `json:"resource"`           // what it changed: orders-producer
	Relation Relation  `json:"relation"`           // related or deploy
	Reason   string    `json:"reason"`             // why it was kept
	What     string    `json:"what"`               // "code was updated"
	Offset   int64     `json:"offset_seconds"`     // from the first failure; negative before it
}

// Noise counts the events dropped for one reason.
type Noise struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Alarm is an alarm that went into ALARM in the range.
type Alarm struct {
	Name       string            `json:"name"`
	Time       time.Time         `json:"time"`
	Reason     string            `json:"reason"`
	Namespace  string            `json:"namespace,omitempty"`
	Metric     string            `json:"metric,omitempty"`
	Dimensions map[string]string `json:"dimensions,omitempty"`
	// Own alarms watch this queue or its consumers; the others watch a
	// dependency, named in Dependency.
	Own        bool   `json:"own"`
	Dependency string `json:"dependency,omitempty"`
	Offset     int64  `json:"offset_seconds"`
}

// Range is the time range the step looks at (changes.json keeps it under
// "window", its key from the start).
type Range struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// FirstFailure and LastFailure are the earliest and latest failure
	// of the DLQ's messages (FailureTime: the first receive of a message
	// SQS moved there, else its SentTimestamp; nil when none was seen).
	FirstFailure *time.Time `json:"first_failure"`
	LastFailure  *time.Time `json:"last_failure"`
	// Source says where the failures' times came from: classification.json,
	// samples.jsonl, a live peek, or --from/--to.
	Source string `json:"source"`
	Margin string `json:"margin"`
}

// Resources are what this queue's messages go through.
type Resources struct {
	Queues    []string `json:"queues"`    // the DLQ and its sources
	Functions []string `json:"functions"` // the consumers (event source mappings, --function)
	Mappings  []string `json:"mappings"`  // the mappings' UUIDs
	Roles     []string `json:"roles"`     // the consumers' execution roles (names)
	Keys      []string `json:"kms_keys"`  // the queues' KMS keys
}

// Consumer is one consumer function's metrics over the range.
type Consumer struct {
	Function string               `json:"function"`
	Series   cwapi.FunctionSeries `json:"series"`
}

// Unread is a source that could not be read, and why.
type Unread struct {
	Source     string `json:"source"` // cloudtrail, alarm-history, metrics, resources
	Reason     string `json:"reason"`
	Permission bool   `json:"permission"` // missing permission (exit 4 when run alone)
}

// Result is the changes step's artifact, changes.json (docs/changes.md).
type Result struct {
	Queue     string    `json:"queue"`
	Account   string    `json:"account"`
	Region    string    `json:"region"`
	Verdict   Verdict   `json:"verdict"`
	Range     Range     `json:"window"`
	Resources Resources `json:"resources"`
	Events    []Event   `json:"events"`
	// Nearest is the kept change closest before the first failure (else
	// after it); nil when none was kept.
	Nearest  *Event  `json:"nearest"`
	Evidence string  `json:"evidence"`
	Read     int     `json:"events_read"`
	Pages    int     `json:"pages"`
	Noise    []Noise `json:"dropped"`
	Dropped  int     `json:"dropped_total"`
	Alarms   []Alarm `json:"alarms"`
	// Arrivals are the sampled messages' SentTimestamps per metric period,
	// for the chart beside the consumer's metrics.
	Arrivals  []cwapi.Point `json:"arrivals"`
	Period    int64         `json:"period_seconds"`
	Consumers []Consumer    `json:"consumers"`
	Unread    []Unread      `json:"unread"`
	Warnings  []string      `json:"warnings"`
}

// Inputs are the changes event's inputs: the range and the consumers as
// the operator gave them.
type Inputs struct {
	From      string   `json:"from"`
	To        string   `json:"to"`
	Margin    string   `json:"margin"`
	Functions []string `json:"functions"`
}

// Figures are the changes event's figures in events.jsonl, read back by
// the report with this type.
type Figures struct {
	From         time.Time  `json:"from"`
	To           time.Time  `json:"to"`
	FirstFailure *time.Time `json:"first_failure,omitempty"`
	Related      int        `json:"related"`
	Deploys      int        `json:"deploys"`
	Dropped      int        `json:"dropped"`
	Alarms       int        `json:"alarms"`
	Nearest      string     `json:"nearest,omitempty"`
	Unread       []string   `json:"unread,omitempty"`
}

// Figures summarises r for its event.
func (r *Result) Figures() Figures {
	f := Figures{From: r.Range.From, To: r.Range.To, FirstFailure: r.Range.FirstFailure, Dropped: r.Dropped, Alarms: len(r.Alarms), Nearest: r.Evidence}
	for _, e := range r.Events {
		if e.Relation == Related {
			f.Related++
		} else {
			f.Deploys++
		}
	}
	for _, u := range r.Unread {
		f.Unread = append(f.Unread, u.Source)
	}
	return f
}

// PermissionDenied tells whether a source could not be read for want of
// permission: the command exits 4 when run alone.
func (r *Result) PermissionDenied() bool {
	for _, u := range r.Unread {
		if u.Permission {
			return true
		}
	}
	return false
}
