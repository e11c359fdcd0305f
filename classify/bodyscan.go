package classify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FingerprintUnparseable is the fingerprint of a body that is not JSON.
const FingerprintUnparseable = "unparseable"

// fingerprintKeys are the top-level fields whose values belong in a
// fingerprint: the ones that name a schema or a message kind.
var fingerprintKeys = []string{"version", "schema_version", "schemaVersion", "schema", "type"}

// bodyScan is what classify reads from one body in one pass: whether it is
// JSON, its top-level keys, its schema-naming fields and the --key field.
// Its slices are reused from message to message.
type bodyScan struct {
	kind    string   // object, array, string, number, boolean, null, empty, unparseable
	keys    [][]byte // top-level keys, sorted, without repeats
	fields  []field  // fingerprintKeys present, in the body's order (fingerprint sorts them)
	watched []string // values of the watched fields ("" when absent)
	present []bool   // which watched fields are present
	raw     []byte   // the trimmed body, for jsonProblem
}

// field is a schema-naming field and its value as text.
type field struct{ name, value string }

// scanKnown reads body into s, and the values of the top-level fields in
// watch (the --key field, the --expect fields). valid says the body is
// known to be valid JSON: the envelope detector checked it, and checking
// again would cost a second pass over every message.
func (s *bodyScan) scanKnown(body []byte, valid bool, watch []string) {
	s.keys, s.fields = s.keys[:0], s.fields[:0]
	s.watched, s.present = s.watched[:0], s.present[:0]
	for range watch {
		s.watched, s.present = append(s.watched, ""), append(s.present, false)
	}
	trimmed := bytes.TrimSpace(body)
	s.raw = trimmed
	switch {
	case len(trimmed) == 0:
		s.kind = "empty"
		return
	case !valid && !json.Valid(trimmed):
		s.kind = FingerprintUnparseable
		return
	}
	s.kind = typeNames[jsonType(trimmed)]
	if s.kind == "object" {
		s.scanObject(trimmed, watch)
	}
}

// scanObject walks the top level of a valid JSON object.
func (s *bodyScan) scanObject(b []byte, watch []string) {
	eachMember(b, func(key, raw []byte) { s.record(key, raw, watch) })
	slices.SortFunc(s.keys, bytes.Compare)
	s.keys = slices.CompactFunc(s.keys, bytes.Equal)
}

func (s *bodyScan) record(key, raw []byte, watch []string) {
	s.keys = append(s.keys, key)
	for i, w := range watch {
		if string(key) == w {
			s.watched[i], s.present[i] = valueText(raw), true
		}
	}
	for _, fk := range fingerprintKeys {
		if string(key) == fk {
			s.fields = append(s.fields, field{fk, valueText(raw)})
		}
	}
}

// fingerprint writes the body's fingerprint to buf: the schema-naming
// fields, then the sorted top-level keys, e.g.
// "version=2 {customer,items,order_id,version}".
func (s *bodyScan) fingerprint(buf []byte) []byte {
	if s.kind != "object" {
		return append(buf, s.kind...)
	}
	for _, fk := range fingerprintKeys {
		for _, f := range s.fields {
			if f.name == fk {
				buf = append(buf, f.name...)
				buf = append(buf, '=')
				buf = append(buf, f.value...)
				buf = append(buf, ' ')
				break
			}
		}
	}
	buf = append(buf, '{')
	for i, k := range s.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, k...)
	}
	return append(buf, '}')
}

// valueText is a JSON value as text: a string unquoted, anything else raw.
func valueText(raw []byte) string {
	if len(raw) > 0 && raw[0] == '"' {
		if bytes.IndexByte(raw, '\\') < 0 {
			return string(raw[1 : len(raw)-1])
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// jsonProblem describes why b is not JSON, with the byte offset.
func jsonProblem(b []byte) string {
	var v json.RawMessage
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if strings.Contains(se.Error(), "unexpected end") {
			return fmt.Sprintf("truncated after %d bytes", len(b))
		}
		return se.Error() + " at byte " + strconv.FormatInt(se.Offset, 10)
	}
	if err != nil {
		return err.Error()
	}
	return "not JSON"
}

// jsonSpace is JSON's white space.
const jsonSpace = " \t\n\r"

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
