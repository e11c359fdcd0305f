package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// SignatureFields are the members of an SNS notification that sign its
// Message. Rewrap drops them from an envelope whose Message it replaced:
// the signature no longer matches, and an envelope that claims a signature
// SNS never made is worse than one that is plainly unsigned. UnsubscribeURL
// stays, and with it the envelope is still read as SNS.
var SignatureFields = []string{"Signature", "SignatureVersion", "SigningCertURL", "SigningCertUrl"}

// ErrNoRewrap is an envelope Rewrap cannot put a new payload into without
// changing more than the payload: an offloaded payload (it lives in S3), a
// CloudEvent (structured or inside a notification), a Lambda event of SNS
// records, or a document wrapped in a destination record.
var ErrNoRewrap = errors.New("cannot re-wrap")

// Rewrap returns m's body with the payload Detect finds in it replaced by
// payload, every other byte as it came: the body itself for a bare
// message (and for a Lambda or rule DLQ message or an S3 event, whose
// payload is the body), the Message string of an SNS notification (its
// signature fields dropped, see SignatureFields), the detail of an
// EventBridge event, the requestPayload of a destination record. It
// checks its own work: the new body must read back as the same kind of
// envelope around exactly payload. dropped names the members removed. e
// is m's envelope (Detect's), which the caller read already: the
// transform reads each message once.
func Rewrap(m *sqsjson.Message, e *Envelope, payload []byte) (body string, dropped []string, err error) {
	out, dropped, err := rewrapped(e, []byte(m.Body), payload)
	if err != nil {
		return "", nil, err
	}
	back := *m
	back.Body = string(out)
	var strict *Detector
	if got := strict.DetectBody(out, &back); got.Kind != e.Kind || got.Wraps != e.Wraps || !samePayload(got.Payload, payload) {
		return "", nil, fmt.Errorf("%w this %s envelope: the new payload would not read back as its payload", ErrNoRewrap, e.Kind)
	}
	return back.Body, dropped, nil
}

// rewrapped is raw, a body Detect read as e, with the member that holds
// e's payload (or the whole trimmed body) replaced by payload.
func rewrapped(e *Envelope, raw, payload []byte) (out []byte, dropped []string, err error) {
	trimmed := bytes.TrimSpace(raw)
	lead := bytes.Index(raw, trimmed)
	// whole: the envelope's outer document is the body itself, so editing
	// one of its members edits what Detect read.
	whole := len(e.docs[0].b) == len(trimmed) && bytes.Equal(e.docs[0].b, trimmed)
	edit := func(member string, value []byte, drop []string) ([]byte, []string, error) {
		doc, dropped := editObject(trimmed, member, value, drop)
		return splice(raw, lead, len(trimmed), doc), dropped, nil
	}
	switch {
	case e.Pointer != nil:
		return nil, nil, fmt.Errorf("%w an offloaded payload: it lives in S3, not in the message", ErrNoRewrap)
	case e.Kind == KindCloudEvents || e.Wraps == KindCloudEvents:
		return nil, nil, fmt.Errorf("%w a CloudEvent", ErrNoRewrap)
	case payloadIsBody(e):
		return splice(raw, lead, len(trimmed), payload), nil, nil
	case outermost(e, KindSNS) && whole:
		msg, err := jsonString(payload)
		if err != nil {
			return nil, nil, err
		}
		return edit("Message", msg, SignatureFields)
	case outermost(e, KindEventBridge) && whole:
		if p := bytes.TrimSpace(payload); len(p) == 0 || p[0] != '{' || !json.Valid(p) {
			return nil, nil, fmt.Errorf("an EventBridge detail must stay a JSON object")
		}
		return edit("detail", payload, nil)
	case e.Kind == KindLambdaDestination && e.Wraps == "":
		if !json.Valid(payload) {
			return nil, nil, fmt.Errorf("a destination record's requestPayload must stay JSON")
		}
		return edit("requestPayload", payload, nil)
	}
	return nil, nil, fmt.Errorf("%w a %s envelope around %s", ErrNoRewrap, e.Kind, e.Wraps)
}

// payloadIsBody: the payload Detect finds is the trimmed body itself — a
// bare message, an S3 event, a Lambda or rule DLQ message around nothing
// it reads further, an S3 event inside anything but a destination record.
func payloadIsBody(e *Envelope) bool {
	return e.Kind == KindRaw || e.Kind == KindS3 ||
		e.Wraps == "" && (e.Kind == KindLambdaAsync || e.Kind == KindEventBridgeDLQ) ||
		e.Wraps == KindS3 && e.Kind != KindLambdaDestination
}

// outermost: k is the envelope whose member Rewrap edits — e's kind, or
// what e wraps unless e is a destination record (whose requestPayload
// holds it, a document Rewrap does not edit).
func outermost(e *Envelope, k Kind) bool {
	return e.Kind == k || e.Wraps == k && e.Kind != KindLambdaDestination
}

// splice replaces n bytes of b at i with r.
func splice(b []byte, i, n int, r []byte) []byte {
	out := make([]byte, 0, len(b)-n+len(r))
	return append(append(append(out, b[:i]...), r...), b[i+n:]...)
}

// jsonString encodes payload as a JSON string the way SNS writes Message:
// no HTML escaping.
func jsonString(payload []byte) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(string(payload)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// samePayload compares payloads as PayloadSHA256 does: JSON compacted.
// Equal bytes need no compaction: a bare body's read-back is the payload
// itself, and compacting both cost the transform a tenth of its work.
func samePayload(a, b []byte) bool {
	return bytes.Equal(a, b) || bytes.Equal(compact(a), compact(b))
}

func compact(p []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, p) == nil { // it writes nothing unless p is valid JSON
		return buf.Bytes()
	}
	return p
}

// memberPos is where one top-level member of an object lies: its key
// starts at key, its value spans [val, end).
type memberPos struct {
	name          string
	key, val, end int
}

// members lists the top-level members of the valid JSON object obj.
func members(obj []byte) []memberPos {
	var out []memberPos
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		keyEnd := StringEnd(obj, i)
		p := memberPos{name: string(obj[i+1 : keyEnd-1]), key: i}
		j := skipSpace(obj, keyEnd)
		p.val = skipSpace(obj, j+1) // past the colon
		p.end = ValueEnd(obj, p.val)
		out = append(out, p)
		i = skipSpace(obj, p.end)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return out
}

// editObject returns obj with the value of its last member named key
// replaced by val and every member named in drop removed, the rest byte
// for byte: each kept member keeps the separator that followed it, the
// last one none. dropped names what was removed.
func editObject(obj []byte, key string, val []byte, drop []string) (out []byte, dropped []string) {
	ms := members(obj)
	last := -1
	for i, p := range ms {
		if p.name == key {
			last = i
		}
	}
	var kept []int
	for i, p := range ms {
		if slices.Contains(drop, p.name) {
			dropped = append(dropped, p.name)
			continue
		}
		kept = append(kept, i)
	}
	if len(ms) == 0 {
		return obj, nil
	}
	out = append(out, obj[:ms[0].key]...)
	for k, i := range kept {
		p := ms[i]
		if i == last {
			out = append(append(out, obj[p.key:p.val]...), val...)
		} else {
			out = append(out, obj[p.key:p.end]...)
		}
		if k < len(kept)-1 {
			out = append(out, obj[p.end:separatorEnd(ms, i, len(obj))]...)
		}
	}
	return append(out, obj[ms[len(ms)-1].end:]...), dropped
}

// separatorEnd is where the separator after member i ends: the next
// member's key; for the last member, the separator of the one before it
// is reused by the caller (there is none after it).
func separatorEnd(ms []memberPos, i, n int) int {
	if i+1 < len(ms) {
		return ms[i+1].key
	}
	return ms[i].end
}
