package mcpserver

import (
	"reflect"
	"strconv"
)

// A tool's input is a struct whose fields name their flag in a `flag` tag;
// argsOf turns it into the command line, so a tool's flags are written once,
// beside their JSON names.

// argsOf is the command line of a tool's input: command and fixed, then
// each tagged field that is set, in the struct's order, as --flag=VALUE (a
// value that starts with "-" stays a value); a list repeats its flag, a
// true bool is --flag=true.
func argsOf(in any, command string, fixed ...string) []string {
	a := append([]string{command}, fixed...)
	v := reflect.ValueOf(in)
	for i := range v.NumField() {
		flag := v.Type().Field(i).Tag.Get("flag")
		if flag == "" {
			continue
		}
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			if f.String() != "" {
				a = append(a, "--"+flag+"="+f.String())
			}
		case reflect.Int:
			if f.Int() != 0 {
				a = append(a, "--"+flag+"="+strconv.FormatInt(f.Int(), 10))
			}
		case reflect.Bool:
			if f.Bool() {
				a = append(a, "--"+flag+"=true")
			}
		case reflect.Slice:
			for j := range f.Len() {
				a = append(a, "--"+flag+"="+f.Index(j).String())
			}
		default:
			panic("mcpserver: flag field of kind " + f.Kind().String())
		}
	}
	return a
}

// LsInput is the ls tool's input.
type LsInput struct {
	Prefix   string `json:"prefix,omitempty" flag:"prefix" jsonschema:"only queues whose names start with this"`
	NonEmpty bool   `json:"non_empty,omitempty" flag:"non-empty" jsonschema:"hide DLQs that hold no message"`
}

// ContainInput is the contain tool's input: step 1, measured only (no
// mapping action can be asked).
type ContainInput struct {
	Queue  string `json:"queue" flag:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	Window string `json:"window,omitempty" flag:"window" jsonschema:"how far back the trend looks, a Go duration such as 30m or 2h (5m-336h)"`
}

// InspectInput is the inspect tool's input: a harmless peek. No tool
// takes force: a peek of a DLQ with its own redrive policy counts each
// receive toward it, and SQS moves a message on to the next DLQ at its
// maxReceiveCount — a person passes --force, never an agent.
type InspectInput struct {
	Queue   string `json:"queue" flag:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	Max     int    `json:"max,omitempty" flag:"max" jsonschema:"distinct messages to collect (1-10000, default 10); each is hidden 5 s, never deleted"`
	Payload string `json:"payload,omitempty" flag:"payload" jsonschema:"jq path of the payload inside an in-house envelope, e.g. .data"`
}

// ClassifyInput is the classify tool's input.
type ClassifyInput struct {
	Queue   string   `json:"queue" flag:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	Expect  []string `json:"expect,omitempty" flag:"expect" jsonschema:"what the consumer accepts, each as FIELD=VALUE, e.g. version=1"`
	Sample  int      `json:"sample,omitempty" flag:"sample" jsonschema:"messages to peek when the incident has no sample (1-10000, default 100)"`
	Key     string   `json:"key,omitempty" flag:"key" jsonschema:"a payload field naming the business operation, or a jq idempotency key"`
	Payload string   `json:"payload,omitempty" flag:"payload" jsonschema:"jq path of the payload inside an in-house envelope, e.g. .data"`
}

// ChangesInput is the changes tool's input.
type ChangesInput struct {
	Queue     string   `json:"queue" flag:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	From      string   `json:"from,omitempty" flag:"since" jsonschema:"window start, RFC 3339 (default: the failures' times)"`
	To        string   `json:"to,omitempty" flag:"until" jsonschema:"window end, RFC 3339"`
	Functions []string `json:"functions,omitempty" flag:"function" jsonschema:"consumers no Lambda mapping names"`
}

// LogsInput is the logs tool's input.
type LogsInput struct {
	Queue      string   `json:"queue" flag:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	LogGroups  []string `json:"log_groups" flag:"log-group" jsonschema:"the consumer's CloudWatch Logs groups, e.g. /aws/lambda/orders"`
	IDs        int      `json:"ids,omitempty" flag:"ids" jsonschema:"how many sampled messages to search for (1-200, default 3)"`
	MessageIDs []string `json:"message_ids,omitempty" flag:"message-id" jsonschema:"search for these MessageIds instead"`
}

// TriageInput is the triage tool's input.
type TriageInput struct {
	Queue     string   `json:"queue" flag:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	LogGroups []string `json:"log_groups,omitempty" flag:"log-group" jsonschema:"the consumer's log groups (default: /aws/lambda/FUNCTION of the mapping reading the source)"`
	Window    string   `json:"window,omitempty" flag:"window" jsonschema:"how far back contain's trend looks (5m-336h, default 30m)"`
	Peek      int      `json:"peek,omitempty" flag:"peek" jsonschema:"messages to peek at (1-1000, default 100)"`
	NoChanges bool     `json:"no_changes,omitempty" flag:"no-changes" jsonschema:"do not read CloudTrail"`
}

// VerifyInput is the verify tool's input: one look, no wait (an agent's
// call must return).
type VerifyInput struct {
	Queue  string `json:"queue" flag:"queue" jsonschema:"the DLQ that was redriven: name, URL or ARN"`
	NoPeek bool   `json:"no_peek,omitempty" flag:"no-peek" jsonschema:"judge by the DLQ's counts only, never receive"`
}

// RedrivePlanInput is the redrive_plan tool's input: the plan of a dry
// run, and the command a person runs to carry it out. Its fields stand in
// the order that command names them.
type RedrivePlanInput struct {
	Queue      string `json:"queue" flag:"queue" jsonschema:"the DLQ: name, URL or ARN"`
	To         string `json:"to,omitempty" flag:"to" jsonschema:"destination: a queue, lambda:FUNCTION, sns:TOPIC or events:BUS (default: the DLQ's source)"`
	Rate       string `json:"rate" flag:"rate" jsonschema:"messages per second (0.01-10000) or max"`
	Group      string `json:"group,omitempty" flag:"group" jsonschema:"only this classify group, e.g. g1"`
	Filter     string `json:"filter,omitempty" flag:"filter" jsonschema:"jq expression over the message; moves those it is true for"`
	Max        int    `json:"max,omitempty" flag:"max" jsonschema:"move at most N messages"`
	SentAfter  string `json:"sent_after,omitempty" flag:"sent-after" jsonschema:"only messages sent after this time (RFC 3339)"`
	SentBefore string `json:"sent_before,omitempty" flag:"sent-before" jsonschema:"only messages sent before this time (RFC 3339)"`
}

// move is the redrive command without --dry-run: what the plan tells a
// person to run.
func (in RedrivePlanInput) move() []string { return argsOf(in, "redrive") }
