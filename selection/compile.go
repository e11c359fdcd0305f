package selection

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/itchyny/gojq"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Predicate is a compiled selection: Match tells whether a message is
// picked. It is never nil: the zero value, and an Empty selection's,
// picks every message (All), so no caller can mistake "no predicate" for
// "none".
type Predicate struct {
	match func(*sqsjson.Message) (bool, error)
}

// Match tells whether m is picked; an error is the filter's on m (the
// message stays, counted as a filter error).
func (p Predicate) Match(m *sqsjson.Message) (bool, error) {
	if p.match == nil {
		return true, nil
	}
	return p.match(m)
}

// All tells whether every message is picked: a move then asks SQS for no
// attribute a selection would read.
func (p Predicate) All() bool { return p.match == nil }

// Func is the predicate for an API whose nil picks everything
// (mover.Options.Select, archive.Options.Select): nil when All, so that
// they ask SQS for fewer attributes.
func (p Predicate) Func() func(*sqsjson.Message) (bool, error) { return p.match }

// Compile turns the selection into its predicate; a jq syntax error is
// returned here, before any queue is touched. groupOf names the
// classification group of a message (classify.GroupOf); a selection with a
// Group needs it. Parse must have run when the selection bounds the time.
func (s Selection) Compile(groupOf func(*sqsjson.Message) string) (Predicate, error) {
	switch {
	case s.Empty():
		return Predicate{}, nil
	case s.Timed() && !s.parsed:
		return Predicate{}, errors.New("selection: the time bounds were not parsed (Selection.Parse)")
	case s.Group != "" && groupOf == nil:
		return Predicate{}, fmt.Errorf("--group %s: the incident's classification was not read", s.Group)
	}
	code, err := compileFilter(s.Filter)
	if err != nil {
		return Predicate{}, err
	}
	after, before, group := s.after, s.before, s.Group
	return Predicate{match: func(m *sqsjson.Message) (bool, error) {
		if !after.IsZero() || !before.IsZero() {
			t, ok := m.SentTime()
			if !ok || (!after.IsZero() && !t.After(after)) || (!before.IsZero() && !t.Before(before)) {
				return false, nil
			}
		}
		if group != "" && groupOf(m) != group {
			return false, nil
		}
		if code == nil {
			return true, nil
		}
		return runFilter(code, m)
	}}, nil
}

// compileFilter compiles --filter (nil without one).
func compileFilter(filter string) (*gojq.Code, error) {
	if filter == "" {
		return nil, nil
	}
	q, err := gojq.Parse(filter)
	if err != nil {
		return nil, fmt.Errorf("--filter %q: %w", filter, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("--filter %q: %w", filter, err)
	}
	return code, nil
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
