// Package dedupe finds the messages of a DLQ that share an idempotency key
// — a producer's resend, the copy an earlier partial redrive left — so that
// inspect and classify can count them and a redrive can move the first of
// each key and leave the others in the DLQ (--key, --dedupe).
//
// # Key
//
// A jq expression (gojq, as --filter and --transform) over the payload
// mfdlq decodes: inside an SNS notification or an EventBridge event the
// inner message, else the body, JSON when it parses. Its one output must
// be a string: `"cobro:" + .order_id`. An error, no output, null or any
// other value is "no key": the message is its own (moved, counted apart).
//
// # Digest
//
// A key is kept as the first 8 bytes of its SHA-256, never as its text: the
// journal records it on each send (so a resumed run knows the keys moved
// before) and the move keeps one in memory per key moved. Two keys share a
// digest with a probability of about n²/2⁶⁵ among n keys (3·10⁻⁸ for a
// million); the later one is then taken for a duplicate and left in the
// DLQ, counted — never deleted, never sent twice.
//
// # Tally
//
// The counts inspect and classify show: how many messages share each key,
// the top keys with example MessageIds, bounded at any backlog (tally.go).
//
// Reading order: key.go, tally.go, claims.go, figures.go.
package dedupe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// MaxExpr bounds a key expression: a key is one line of jq, and the plan
// and the report print it.
const MaxExpr = 4 << 10

// MaxKey bounds a key's text as it is shown; the digest covers all of it.
const MaxKey = 200

// timeout bounds one message's evaluation: an expression that loops gives
// that message no key instead of hanging the move.
const timeout = time.Second

// Key is a compiled --key. It is safe for concurrent use: the mover's
// workers evaluate it at once.
type Key struct {
	// Expr is the expression as given, for the plan and the report.
	Expr string
	code *gojq.Code
	// blank are the keys of a payload without fields (blanks).
	blank []string
	// payload finds what `.` is (see Payload).
	payload Payload
	// attrs: the expression names $attributes (else Of builds no value
	// for it).
	attrs bool
}

// Payload finds a message's payload — envelope.Detect's, or an in-house
// envelope's --payload path for inspect and classify — and tells whether
// it is JSON. The caller gives it: dedupe imports no envelope package, so
// that the mover and classify stay within the import chain's bound.
type Payload func(*sqsjson.Message) (payload []byte, isJSON bool)

// Compile compiles a --key expression; every syntax error and unknown name
// is found here, before any AWS call. The expression sees `.` (the payload)
// and $attributes (the message attributes in the SQS API's shape), no
// environment variables.
func Compile(expr string, payload Payload) (*Key, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, errors.New(`--key: the expression is empty: give the consumer's idempotency key, e.g. '"cobro:" + .order_id'`)
	}
	if len(expr) > MaxExpr {
		return nil, fmt.Errorf("--key: the expression is %d bytes, over %d: a key is one line of jq", len(expr), MaxExpr)
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("--key %s: %s: fix the expression (jq syntax)", untrusted.Terminal(strconvQuote(expr)), untrusted.Terminal(err.Error()))
	}
	code, err := gojq.Compile(q, gojq.WithVariables([]string{"$attributes"}), gojq.WithEnvironLoader(func() []string { return nil }))
	if err != nil {
		return nil, fmt.Errorf("--key %s: %s: fix the expression", untrusted.Terminal(strconvQuote(expr)), untrusted.Terminal(err.Error()))
	}
	// A variable is lexical in jq: an expression that compiles without
	// $attributes never reads it.
	_, noAttrs := gojq.Compile(q)
	k := &Key{Expr: expr, code: code, payload: payload, attrs: noAttrs != nil}
	k.blank = k.blanks()
	return k, nil
}

// blanks are the keys the expression gives a payload without its fields
// ({} and null): jq adds null as nothing, so `"cobro:" + .order_id` on a
// message without an order_id is "cobro:", which would make every such
// message a duplicate of the first. A message whose key is a blank has
// no key.
func (k *Key) blanks() []string {
	var out []string
	for _, in := range []any{map[string]any{}, nil} {
		if s, err := k.eval(in, map[string]any{}); err == nil && !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func strconvQuote(s string) string { return strconv.Quote(untrusted.Head(s, 120)) }

// NoKey is why a message has no key: it is its own, moved as any other and
// counted apart.
type NoKey struct{ Reason string }

func (e *NoKey) Error() string { return "no key: " + e.Reason }

// Of evaluates the key of m: the expression's one output, a non-empty
// string. Any other outcome is a *NoKey saying why.
func (k *Key) Of(m *sqsjson.Message) (string, error) {
	in, err := payloadValue(k.payload(m))
	return k.OfDecoded(m, in, err)
}

// OfDecoded is Of for m whose payload the caller decoded already: in is
// `.` (JSON with its numbers as written, else the text) of the payload
// the Key's Payload finds, err why it did not decode. The redrive mover
// reads each message once for --key and --transform (envelope.Decode).
func (k *Key) OfDecoded(m *sqsjson.Message, in any, err error) (string, error) {
	if err != nil {
		return "", &NoKey{Reason: "the payload does not decode: " + err.Error()}
	}
	var attrs any
	if k.attrs {
		attrs = sqsjson.AttributesValue(m.MessageAttributes)
	}
	key, err := k.eval(in, attrs)
	if err == nil && contains(k.blank, key) {
		return "", &NoKey{Reason: fmt.Sprintf("the key is %s, what the expression gives a message without its fields", strconv.Quote(untrusted.Head(key, 60)))}
	}
	return key, err
}

// eval runs the expression on one payload and its attributes.
func (k *Key) eval(in, attrs any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	v, ok := k.code.RunWithContext(ctx, in, attrs).Next()
	switch {
	case !ok:
		return "", &NoKey{Reason: "the expression gave no output"}
	case v == nil:
		return "", &NoKey{Reason: "the expression gave null (a field the message lacks?)"}
	}
	switch t := v.(type) {
	case error:
		if ctx.Err() != nil {
			return "", &NoKey{Reason: "the expression ran out of time"}
		}
		return "", &NoKey{Reason: untrusted.Shorten(t.Error(), 200)}
	case string:
		if t == "" {
			return "", &NoKey{Reason: "the expression gave an empty string"}
		}
		return t, nil
	}
	return "", &NoKey{Reason: fmt.Sprintf("the expression gave a %s, not a string (wrap it in tostring)", typeOf(v))}
}

// Digest is the 64-bit digest of a key (see the package doc), never 0.
func Digest(key string) uint64 {
	sum := sha256.Sum256([]byte(key))
	d := binary.LittleEndian.Uint64(sum[:8])
	if d == 0 {
		d = 1
	}
	return d
}

// Hex is a digest as the journal records it: 16 lowercase hex digits.
func Hex(d uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[d&15]
		d >>= 4
	}
	return string(b[:])
}

// payloadValue is `.`: the payload, JSON decoded with its numbers as
// written (a 20-digit id stays exact), else its text.
func payloadValue(payload []byte, isJSON bool) (any, error) {
	if !isJSON {
		return string(payload), nil
	}
	d := json.NewDecoder(bytes.NewReader(payload))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func typeOf(v any) string {
	switch v.(type) {
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case json.Number, int, float64:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
