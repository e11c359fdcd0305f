package classify

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// Bounds of what a baseline remembers, so a large baseline file costs fixed
// memory.
const (
	maxBaselineValues = 100 // distinct values per schema field
	maxBaselineKeys   = 512 // distinct top-level keys
)

// Baseline is what healthy messages look like: their schema fields' values
// and how often each top-level key appears.
type Baseline struct {
	Messages    int
	Envelopes   map[string]int            // envelope kind → messages
	Objects     int                       // bodies that are JSON objects
	Values      map[string]map[string]int // schema field → value → messages
	KeyCounts   map[string]int            // top-level key → messages that have it
	Unparseable int
	// Pointers counts Extended Client pointers (offloaded payloads), by
	// bucket in PointerBuckets: compared as pointers, never as objects.
	Pointers       int
	PointerBuckets map[string]int
	// CloudEvents counts CloudEvents; Schemas holds their type and
	// dataschema values ("type" → value → messages).
	CloudEvents int
	Schemas     map[string]map[string]int
	// Attributes counts the message attributes' names: an error-ish one
	// the healthy messages carry is no error.
	Attributes map[string]int

	profile *fieldProfile // the payloads' field paths, types and enum values
	sizes   sizes         // the payloads' sizes, for a timeout's comparison
	// declared: the counts the payloads declare (rows, item_count).
	declared sizes
}

// LoadBaselineWith streams healthy messages from r (JSON Lines or a
// {"Messages": [...]} document) through the detector d (--payload), which
// must be the one the classification uses (nil: the strict detector).
// SentTimestamp is not needed. What is compared is the payload, so a
// baseline of bare messages serves a DLQ of SNS-wrapped ones.
func LoadBaselineWith(r io.Reader, d *envelope.Detector) (*Baseline, error) {
	rd, err := sqsjson.NewReader(r)
	if err != nil {
		return nil, err
	}
	b := &Baseline{Values: map[string]map[string]int{}, KeyCounts: map[string]int{}, Envelopes: map[string]int{},
		PointerBuckets: map[string]int{}, Schemas: map[string]map[string]int{}, Attributes: map[string]int{}, profile: newFieldProfile()}
	var s bodyScan
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		env := d.Detect(m)
		s.scanEnvelope(&env, nil)
		b.sizes.add(len(env.Payload))
		addDeclared(&b.declared, nil, &env)
		for n := range m.MessageAttributes {
			countBounded(b.Attributes, n, maxBaselineKeys)
		}
		countBounded(b.Envelopes, envelopeName(&env), maxBaselineKeys)
		b.addEnvelope(&env)
		if env.Pointer != nil {
			b.Messages++
			continue
		}
		b.add(&s)
		if s.kind == "object" {
			b.profile.add(env.Payload)
		}
	}
}

// addEnvelope counts what the envelope says of the schema: a pointer's
// bucket, a CloudEvent's type and dataschema.
func (b *Baseline) addEnvelope(env *envelope.Envelope) {
	if env.Pointer != nil {
		b.Pointers++
		countBounded(b.PointerBuckets, env.Pointer.Bucket, maxBaselineValues)
	}
	if env.EventType == "" {
		return
	}
	b.CloudEvents++
	for name, v := range map[string]string{"type": env.EventType, "dataschema": env.DataSchema} {
		if v == "" {
			continue
		}
		if b.Schemas[name] == nil {
			b.Schemas[name] = map[string]int{}
		}
		countBounded(b.Schemas[name], v, maxBaselineValues)
	}
}

func (b *Baseline) add(s *bodyScan) {
	b.Messages++
	if s.kind == FingerprintUnparseable {
		b.Unparseable++
	}
	if s.kind != "object" {
		return
	}
	b.Objects++
	for _, f := range s.fields {
		vals := b.Values[f.name]
		if vals == nil {
			vals = map[string]int{}
			b.Values[f.name] = vals
		}
		countBounded(vals, f.value, maxBaselineValues)
	}
	for _, k := range s.keys {
		countBounded(b.KeyCounts, string(k), maxBaselineKeys)
	}
}

// countBounded counts k in m, unless m holds limit keys already and not k.
func countBounded(m map[string]int, k string, limit int) {
	if _, ok := m[k]; ok || len(m) < limit {
		m[k]++
	}
}

// summary is the baseline as classification.json records it.
func (b *Baseline) summary() *Summary {
	if b == nil {
		return nil
	}
	return &Summary{Messages: b.Messages, Values: b.Values}
}

// Expectation is one --expect FIELD=VALUE: a top-level field's value that
// the consumer accepts. Several for one field allow any of them.
type Expectation struct {
	Field, Value string
}

// ParseExpectation reads "FIELD=VALUE".
func ParseExpectation(s string) (Expectation, error) {
	f, v, ok := strings.Cut(s, "=")
	f = strings.TrimSpace(f)
	if !ok || f == "" {
		return Expectation{}, fmt.Errorf("--expect %q: use FIELD=VALUE, e.g. --expect version=1", s)
	}
	return Expectation{Field: f, Value: strings.TrimSpace(v)}, nil
}

// String is "FIELD=VALUE".
func (e Expectation) String() string { return e.Field + "=" + e.Value }
