package mover

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/itchyny/gojq"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Selection picks the messages a redrive moves. The zero value picks all.
type Selection struct {
	// Filter is a jq expression over the message in the SQS API's shape,
	// its Body parsed when it is JSON: a message is picked when the first
	// output is neither false nor null.
	Filter string
	// SentAfter and SentBefore bound SentTimestamp (zero: unbounded).
	SentAfter, SentBefore time.Time
	// Group picks messages by a classification group; GroupOf names the
	// group of a message.
	Group   string
	GroupOf func(*sqsjson.Message) string
}

// Empty tells whether the selection picks every message.
func (s Selection) Empty() bool {
	return s.Filter == "" && s.SentAfter.IsZero() && s.SentBefore.IsZero() && s.Group == ""
}

// Compile turns the selection into a predicate; a jq syntax error is
// returned here, before any queue is touched. An empty selection compiles
// to nil (Options.Select: move all), so the mover need not ask SQS for
// the attributes a selection would read.
func (s Selection) Compile() (func(*sqsjson.Message) (bool, error), error) {
	if s.Empty() {
		return nil, nil
	}
	var code *gojq.Code
	if s.Filter != "" {
		q, err := gojq.Parse(s.Filter)
		if err != nil {
			return nil, fmt.Errorf("--filter %q: %w", s.Filter, err)
		}
		if code, err = gojq.Compile(q); err != nil {
			return nil, fmt.Errorf("--filter %q: %w", s.Filter, err)
		}
	}
	return func(m *sqsjson.Message) (bool, error) {
		if !s.SentAfter.IsZero() || !s.SentBefore.IsZero() {
			t, ok := m.SentTime()
			if !ok || (!s.SentAfter.IsZero() && !t.After(s.SentAfter)) || (!s.SentBefore.IsZero() && !t.Before(s.SentBefore)) {
				return false, nil
			}
		}
		if s.Group != "" && (s.GroupOf == nil || s.GroupOf(m) != s.Group) {
			return false, nil
		}
		if code == nil {
			return true, nil
		}
		return runFilter(code, m)
	}, nil
}

func runFilter(code *gojq.Code, m *sqsjson.Message) (bool, error) {
	in, err := filterInput(m)
	if err != nil {
		return false, err
	}
	v, ok := code.Run(in).Next()
	if !ok {
		return false, nil
	}
	if err, isErr := v.(error); isErr {
		return false, err
	}
	return v != nil && v != false, nil
}

// filterInput is the value --filter sees: the message in the SQS API's
// shape with Body parsed when it is JSON, and beside it .Payload — the
// payload inside the message's envelope (an SNS Message, an EventBridge
// detail, a destination record's requestPayload; the body itself for a
// bare message), parsed when it is JSON — and .Envelope {kind, error}.
// Only the selection reads these: what is sent is the body, byte for byte.
func filterInput(m *sqsjson.Message) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var in map[string]any
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, err
	}
	var body any
	if json.Unmarshal([]byte(m.Body), &body) == nil {
		in["Body"] = body
	}
	delete(in, "ReceiptHandle")
	env := envelope.Detect(m)
	var payload any = string(env.Payload)
	if env.PayloadJSON {
		if err := json.Unmarshal(env.Payload, &payload); err != nil {
			return nil, err
		}
	}
	in["Payload"] = payload
	in["Envelope"] = map[string]any{"kind": string(env.Kind), "error": env.Error}
	return in, nil
}
