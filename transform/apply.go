package transform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/itchyny/gojq"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Outcome is what a program made of one message. The strings appear in the
// journal and the figures.
type Outcome string

// The outcomes.
const (
	// Changed: a new payload or new attributes, checked against Limits;
	// Result.Message is what is sent instead of the original.
	Changed Outcome = "changed"
	// Unchanged: the program gave back what it was given; the original is
	// sent byte for byte.
	Unchanged Outcome = "unchanged"
	// Failed: a program error or a result SQS would refuse; the message
	// stays in the DLQ with Result.Reason.
	Failed Outcome = "failed"
)

// Result is the program's outcome on one message.
type Result struct {
	Outcome Outcome
	// Message is what to send: the original for Unchanged, the repaired
	// copy for Changed (same MessageId and system Attributes — the FIFO
	// group and deduplication id go as they came), nil for Failed.
	Message *sqsjson.Message
	// Reason says why it failed: sanitised, at most ~300 bytes.
	Reason string
	// Before and After are the payloads (After nil unless Changed).
	Before, After []byte
	// Dropped names the envelope members the re-wrap removed (the SNS
	// signature fields: see envelope.SignatureFields).
	Dropped []string
	// AttributesChanged tells that set_attributes gave other attributes.
	AttributesChanged bool
}

// Apply runs the program on m, leaving m as it was. A program error, a
// program that does not give exactly one value, an envelope that cannot
// carry the new payload and a result over lim are Failed, never a panic
// or an error of the run: each message fails alone.
func (p *Program) Apply(ctx context.Context, m *sqsjson.Message, lim Limits) Result {
	env := envelope.Detect(m)
	before := bytes.Clone(env.Payload)
	fail := func(format string, a ...any) Result {
		return Result{Outcome: Failed, Reason: Reason(fmt.Errorf(format, a...)), Before: before}
	}
	in, err := payloadValue(env)
	if err != nil {
		return fail("the payload does not decode: %v", err)
	}
	attrs := sqsjson.AttributesValue(m.MessageAttributes)
	out, err := p.run(ctx, in, attrs, messageValue(m, env.Kind))
	if err != nil {
		return fail("%v", err)
	}
	payloadOut, attrsOut, setAttrs, err := unwrap(out)
	if err != nil {
		return fail("%v", err)
	}
	after, err := encodePayload(payloadOut, env.PayloadJSON)
	if err != nil {
		return fail("%v", err)
	}
	newAttrs := m.MessageAttributes
	attrsChanged := false
	if setAttrs {
		if newAttrs, err = attributesFrom(attrsOut); err != nil {
			return fail("set_attributes: %v", err)
		}
		attrsChanged = !sameAttributes(m.MessageAttributes, newAttrs)
	}
	payloadChanged := !samePayload(in, payloadOut)
	if !payloadChanged && !attrsChanged {
		return Result{Outcome: Unchanged, Message: m, Before: before}
	}
	repaired := *m
	repaired.MessageAttributes = newAttrs
	repaired.MD5OfBody, repaired.MD5OfMessageAttributes = "", ""
	var dropped []string
	if payloadChanged {
		if repaired.Body, dropped, err = envelope.Rewrap(m, after); err != nil {
			return fail("%v", err)
		}
	} else {
		after = before
	}
	if err := lim.Check(m, &repaired); err != nil {
		return fail("%v", err)
	}
	return Result{Outcome: Changed, Message: &repaired, Before: before, After: after, Dropped: dropped, AttributesChanged: attrsChanged}
}

// run gives the program's one output, bounded by the timeout.
func (p *Program) run(ctx context.Context, in, attrs, msg any) (any, error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	it := p.code.RunWithContext(ctx, in, attrs, msg)
	v, ok := it.Next()
	if !ok {
		return nil, errors.New("the program gave no output (select and empty belong in --filter): it must give the new payload")
	}
	if err, isErr := v.(error); isErr {
		return nil, programError(ctx, err)
	}
	if second, ok := it.Next(); ok {
		if err, isErr := second.(error); isErr {
			return nil, programError(ctx, err)
		}
		return nil, errors.New("the program gave more than one output: it must give one payload per message")
	}
	return v, nil
}

func programError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errors.New("the program ran out of time on this message")
	}
	var ve interface{ Value() any }
	if errors.As(err, &ve) {
		// error("…"): the program's own words, not gojq's "error: " prefix.
		if s, ok := ve.Value().(string); ok {
			return fmt.Errorf("program error: %s", s)
		}
		if b, err := gojq.Marshal(ve.Value()); err == nil {
			return fmt.Errorf("program error: %s", b)
		}
	}
	return fmt.Errorf("program error: %w", err)
}

// unwrap splits a set_attributes result from a bare payload.
func unwrap(v any) (payload, attrs any, set bool, err error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return v, nil, false, nil
	}
	w, ok := obj[marker]
	if !ok {
		return v, nil, false, nil
	}
	inner, ok := w.(map[string]any)
	if len(obj) != 1 || !ok {
		return nil, nil, false, errors.New("set_attributes must be the program's last step")
	}
	return inner["payload"], inner["attributes"], true, nil
}

// payloadValue is the payload as the program sees it: JSON decoded with
// its numbers kept as written (gojq carries a json.Number it does not
// compute on as its text: 19.990 stays 19.990, a 20-digit id stays
// exact), else the text as a string.
func payloadValue(env envelope.Envelope) (any, error) {
	if !env.PayloadJSON {
		return string(env.Payload), nil
	}
	d := json.NewDecoder(bytes.NewReader(env.Payload))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// encodePayload writes the program's output as the new payload: for a JSON
// payload, compact JSON with its keys sorted (gojq's order); for a text
// payload, a string output is the new text itself and anything else its
// JSON.
func encodePayload(v any, wasJSON bool) ([]byte, error) {
	if s, ok := v.(string); ok && !wasJSON {
		return []byte(s), nil
	}
	b, err := gojq.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the program's output does not encode as JSON: %v", err)
	}
	return b, nil
}

// samePayload tells whether the program gave back the payload it was
// given: compared as gojq encodes both, so a number kept as written and a
// map in another order compare equal.
func samePayload(a, b any) bool {
	ea, err1 := gojq.Marshal(a)
	eb, err2 := gojq.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
}

// messageValue is $message: what a program may branch on besides the
// payload.
func messageValue(m *sqsjson.Message, kind envelope.Kind) map[string]any {
	sys := map[string]any{}
	for k, v := range m.Attributes {
		sys[k] = v
	}
	return map[string]any{"MessageId": m.MessageId, "Attributes": sys, "Envelope": map[string]any{"kind": string(kind)}}
}
