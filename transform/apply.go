package transform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

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
	// AttributesChanged tells that set_attributes gave other attributes,
	// PayloadChanged that the program gave another payload (After).
	AttributesChanged, PayloadChanged bool
	// Interrupted tells a Failed result that is no verdict: the caller's
	// context ended (Ctrl-C) while the message was worked on. It is not a
	// program failure: not counted, not journaled, not shown.
	Interrupted bool
}

// Apply runs the program on m, leaving m as it was. A program error, a
// program that does not give exactly one value, an envelope that cannot
// carry the new payload and a result over lim are Failed, never a panic
// or an error of the run: each message fails alone.
//
// The program's timeout covers the whole of one message's work — the run,
// the size bound, the encoding, the comparison, the re-wrap and the checks
// — and the output is measured before it is copied: a value larger than
// lim takes fails before it is encoded (a program that built a 300 MB
// string cost 26 s and 1.8 GB in encodings and scans before the size check
// refused it). When ctx itself ends (Ctrl-C), the Result is Interrupted:
// the message was not judged, and no failure is counted.
func (p *Program) Apply(ctx context.Context, m *sqsjson.Message, lim Limits) Result {
	return p.ApplyDecoded(ctx, m, envelope.Decode(m), lim)
}

// ApplyDecoded is Apply of m whose envelope and payload the caller read
// already (envelope.Decode(m)): the redrive mover reads each message once
// for --key and --transform.
func (p *Program) ApplyDecoded(ctx context.Context, m *sqsjson.Message, d envelope.Decoded, lim Limits) Result {
	env := &d.Envelope
	before := bytes.Clone(env.Payload)
	release, ok := runs.enter(ctx)
	if !ok {
		return Result{Outcome: Failed, Interrupted: true, Reason: "interrupted", Before: before}
	}
	defer release()
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(format string, a ...any) Result {
		if parent.Err() != nil {
			return Result{Outcome: Failed, Interrupted: true, Reason: "interrupted", Before: before}
		}
		if ctx.Err() != nil {
			return Result{Outcome: Failed, Reason: Reason(errOutOfTime), Before: before}
		}
		return Result{Outcome: Failed, Reason: Reason(fmt.Errorf(format, a...)), Before: before}
	}
	// late fails the message once its time is up, between the stages.
	late := func() (Result, bool) {
		if ctx.Err() != nil {
			return fail("%v", errOutOfTime), true
		}
		return Result{}, false
	}
	in, err := d.Value, d.Err
	if err != nil {
		return fail("the payload does not decode: %v", err)
	}
	var attrs, msg any // nil for a program that never reads them
	if p.readsAttributes {
		attrs = sqsjson.AttributesValue(m.MessageAttributes)
	}
	if p.readsMessage {
		msg = messageValue(m, env.Kind)
	}
	out, err := p.run(ctx, in, attrs, msg)
	if err != nil {
		return fail("%v", err)
	}
	if r, over := late(); over {
		return r
	}
	if n, over := outputOver(out, lim.maxBytes()); over {
		return fail("the program's output is over the destination's %d bytes (at least %d): it was not encoded", lim.maxBytes(), n)
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
	payloadChanged := !samePayload(in, payloadOut, after, env.PayloadJSON)
	if r, over := late(); over {
		return r
	}
	if !payloadChanged && !attrsChanged {
		return Result{Outcome: Unchanged, Message: m, Before: before}
	}
	repaired := *m
	repaired.MessageAttributes = newAttrs
	repaired.MD5OfBody, repaired.MD5OfMessageAttributes = "", ""
	var dropped []string
	if payloadChanged {
		if repaired.Body, dropped, err = envelope.Rewrap(m, env, after); err != nil {
			return fail("%v", err)
		}
	} else {
		after = before
	}
	if err := lim.Check(m, &repaired); err != nil {
		return fail("%v", err)
	}
	if r, over := late(); over {
		return r
	}
	return Result{Outcome: Changed, Message: &repaired, Before: before, After: after, Dropped: dropped, AttributesChanged: attrsChanged, PayloadChanged: payloadChanged}
}

// errOutOfTime is a message whose work (the program and what follows it)
// outlasted the program's timeout.
var errOutOfTime = errors.New("the program ran out of time on this message")

// run gives the program's one output; ctx bounds it.
func (p *Program) run(ctx context.Context, in, attrs, msg any) (any, error) {
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

// outputOver tells whether v, a program's output, encodes to more than
// max bytes, from a lower bound of its encoding counted without encoding
// anything (a string's bytes, a number's digits, a container's brackets
// and separators, a key's quotes and colon), stopping as soon as it
// passes max: the walk costs at most max steps whatever the program made.
// n is the bound counted so far.
func outputOver(v any, max int) (n int, over bool) {
	stack := []any{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := x.(type) {
		case string:
			n += len(x)
		case json.Number:
			n += len(x)
		case *big.Int:
			n += x.BitLen() * 3 / 10 // log10(2) digits a bit
		case map[string]any:
			n += 2
			for k, e := range x {
				n += len(k) + 4
				if n > max {
					return n, true
				}
				stack = append(stack, e)
			}
		case []any:
			n += 2 + len(x)
			if n > max {
				return n, true
			}
			stack = append(stack, x...)
		default:
			n++
		}
		if n > max {
			return n, true
		}
	}
	return n, false
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

// samePayload tells whether the program gave back the payload a it was
// given, b being its output and eb what encodePayload made of it:
// compared as gojq encodes both, so a number kept as written and a map in
// another order compare equal. eb is b's gojq encoding unless b is the
// new text of a text payload; then b is encoded again.
func samePayload(a, b any, eb []byte, wasJSON bool) bool {
	ea, err := gojq.Marshal(a)
	if err != nil {
		return false
	}
	if _, text := b.(string); text && !wasJSON {
		if eb, err = gojq.Marshal(b); err != nil {
			return false
		}
	}
	return bytes.Equal(ea, eb)
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
