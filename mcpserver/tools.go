package mcpserver

import (
	"strconv"
)

// argv builds a command line, every value as --flag=VALUE: a value that
// starts with "-" stays a value.
type argv []string

func (a *argv) str(flag, v string) {
	if v != "" {
		*a = append(*a, "--"+flag+"="+v)
	}
}

func (a *argv) strs(flag string, vs []string) {
	for _, v := range vs {
		*a = append(*a, "--"+flag+"="+v)
	}
}

func (a *argv) num(flag string, n int) {
	if n != 0 {
		*a = append(*a, "--"+flag+"="+strconv.Itoa(n))
	}
}

func (a *argv) flag(flag string, b bool) {
	if b {
		*a = append(*a, "--"+flag+"=true")
	}
}

// LsInput is the ls tool's input.
type LsInput struct {
	Prefix   string `json:"prefix,omitempty" jsonschema:"only queues whose names start with this"`
	NonEmpty bool   `json:"non_empty,omitempty" jsonschema:"hide DLQs that hold no message"`
}

func (in LsInput) args() []string {
	a := argv{"ls", "--notes=none"}
	a.str("prefix", in.Prefix)
	a.flag("non-empty", in.NonEmpty)
	return a
}

// ContainInput is the contain tool's input: step 1, measured only (no
// mapping action can be asked).
type ContainInput struct {
	Queue  string `json:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	Window string `json:"window,omitempty" jsonschema:"how far back the trend looks, a Go duration such as 30m or 2h (5m-336h)"`
}

func (in ContainInput) args() []string {
	a := argv{"contain"}
	a.str("queue", in.Queue)
	a.str("window", in.Window)
	return a
}

// InspectInput is the inspect tool's input: a harmless peek. No tool
// takes force: a peek of a DLQ with its own redrive policy counts each
// receive toward it, and SQS moves a message on to the next DLQ at its
// maxReceiveCount — a person passes --force, never an agent.
type InspectInput struct {
	Queue   string `json:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	Max     int    `json:"max,omitempty" jsonschema:"distinct messages to collect (1-10000, default 10); each is hidden 5 s, never deleted"`
	Payload string `json:"payload,omitempty" jsonschema:"jq path of the payload inside an in-house envelope, e.g. .data"`
}

func (in InspectInput) args() []string {
	a := argv{"inspect"}
	a.str("queue", in.Queue)
	a.num("max", in.Max)
	a.str("payload", in.Payload)
	return a
}

// ClassifyInput is the classify tool's input.
type ClassifyInput struct {
	Queue   string   `json:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	Expect  []string `json:"expect,omitempty" jsonschema:"what the consumer accepts, each as FIELD=VALUE, e.g. version=1"`
	Sample  int      `json:"sample,omitempty" jsonschema:"messages to peek when the incident has no sample (1-10000, default 100)"`
	Key     string   `json:"key,omitempty" jsonschema:"a payload field naming the business operation, or a jq idempotency key"`
	Payload string   `json:"payload,omitempty" jsonschema:"jq path of the payload inside an in-house envelope, e.g. .data"`
}

func (in ClassifyInput) args() []string {
	a := argv{"classify"}
	a.str("queue", in.Queue)
	a.strs("expect", in.Expect)
	a.num("sample", in.Sample)
	a.str("key", in.Key)
	a.str("payload", in.Payload)
	return a
}

// ChangesInput is the changes tool's input.
type ChangesInput struct {
	Queue     string   `json:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	From      string   `json:"from,omitempty" jsonschema:"window start, RFC 3339 (default: the failures' times)"`
	To        string   `json:"to,omitempty" jsonschema:"window end, RFC 3339"`
	Functions []string `json:"functions,omitempty" jsonschema:"consumers no Lambda mapping names"`
}

func (in ChangesInput) args() []string {
	a := argv{"changes"}
	a.str("queue", in.Queue)
	a.str("since", in.From)
	a.str("until", in.To)
	a.strs("function", in.Functions)
	return a
}

// LogsInput is the logs tool's input.
type LogsInput struct {
	Queue      string   `json:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	LogGroups  []string `json:"log_groups" jsonschema:"the consumer's CloudWatch Logs groups, e.g. /aws/lambda/orders"`
	IDs        int      `json:"ids,omitempty" jsonschema:"how many sampled messages to search for (1-200, default 3)"`
	MessageIDs []string `json:"message_ids,omitempty" jsonschema:"search for these MessageIds instead"`
}

func (in LogsInput) args() []string {
	a := argv{"logs"}
	a.str("queue", in.Queue)
	a.strs("log-group", in.LogGroups)
	a.num("ids", in.IDs)
	a.strs("message-id", in.MessageIDs)
	return a
}

// TriageInput is the triage tool's input.
type TriageInput struct {
	Queue     string   `json:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	LogGroups []string `json:"log_groups,omitempty" jsonschema:"the consumer's log groups (default: /aws/lambda/FUNCTION of the mapping reading the source)"`
	Window    string   `json:"window,omitempty" jsonschema:"how far back contain's trend looks (5m-336h, default 30m)"`
	Peek      int      `json:"peek,omitempty" jsonschema:"messages to peek at (1-1000, default 100)"`
	NoChanges bool     `json:"no_changes,omitempty" jsonschema:"do not read CloudTrail"`
}

func (in TriageInput) args() []string {
	a := argv{"triage"}
	a.str("queue", in.Queue)
	a.strs("log-group", in.LogGroups)
	a.str("window", in.Window)
	a.num("peek", in.Peek)
	a.flag("no-changes", in.NoChanges)
	return a
}

// VerifyInput is the verify tool's input: one look, no wait (an agent's
// call must return).
type VerifyInput struct {
	Queue  string `json:"queue" jsonschema:"the DLQ that was redriven: name, URL or ARN"`
	NoPeek bool   `json:"no_peek,omitempty" jsonschema:"judge by the DLQ's counts only, never receive"`
}

func (in VerifyInput) args() []string {
	a := argv{"verify", "--wait=0s", "--settle=0s"}
	a.str("queue", in.Queue)
	a.flag("no-peek", in.NoPeek)
	return a
}

// RedrivePlanInput is the redrive_plan tool's input: the plan of a dry
// run, and the command a person runs to carry it out.
type RedrivePlanInput struct {
	Queue      string `json:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	Rate       string `json:"rate" jsonschema:"messages per second (0.01-10000) or max"`
	To         string `json:"to,omitempty" jsonschema:"destination: a queue, lambda:FUNCTION, sns:TOPIC or events:BUS (default: the DLQ's source)"`
	Group      string `json:"group,omitempty" jsonschema:"only this classify group, e.g. g1"`
	Filter     string `json:"filter,omitempty" jsonschema:"jq expression over the message; moves those it is true for"`
	Max        int    `json:"max,omitempty" jsonschema:"move at most N messages"`
	SentAfter  string `json:"sent_after,omitempty" jsonschema:"only messages sent after this time (RFC 3339)"`
	SentBefore string `json:"sent_before,omitempty" jsonschema:"only messages sent before this time (RFC 3339)"`
}

// move is the redrive command without --dry-run: what the plan tells a
// person to run.
func (in RedrivePlanInput) move() []string {
	a := argv{"redrive"}
	a.str("queue", in.Queue)
	a.str("to", in.To)
	a.str("rate", in.Rate)
	a.str("group", in.Group)
	a.str("filter", in.Filter)
	a.num("max", in.Max)
	a.str("sent-after", in.SentAfter)
	a.str("sent-before", in.SentBefore)
	return a
}

func (in RedrivePlanInput) args() []string { return append(in.move(), "--dry-run=true") }
