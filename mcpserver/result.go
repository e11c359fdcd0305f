package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mfdlq/mfdlq/redact"
	"github.com/mfdlq/mfdlq/untrusted"
)

// The bounds of a tool's result. An agent's context is small and every
// byte of it may be read back as an instruction: a result is cut, never
// streamed whole.
const (
	// MaxResult bounds a result's text.
	MaxResult = 128 << 10
	// maxString and maxItems bound one string and one array; past
	// MaxResult the result is shaped again with the tight ones.
	maxString, tightString = 2000, 200
	maxItems, tightItems   = 100, 20
	// headBytes is how much of one string is read at all: redacting
	// megabytes to show two thousand bytes of them is waste.
	headBytes = 64 << 10
)

// Outcome is one run of a command: its streams and exit status.
type Outcome struct {
	Stdout, Stderr []byte
	Code           int
}

// cleaner makes strangers' strings safe for an agent: redacted, sanitised,
// shortened.
type cleaner struct {
	r            redact.Redactor
	limit, items int
}

func (c *cleaner) str(s string) string {
	total := len(s)
	if total > headBytes {
		s = s[:headBytes]
	}
	s = untrusted.Terminal(c.r.String(s))
	if total > headBytes {
		return untrusted.ShortenHead(s, total, c.limit)
	}
	return untrusted.Shorten(s, c.limit)
}

// value cleans a decoded JSON value: every string and every key, arrays
// cut to c.items with a last element that says how many were left out.
func (c *cleaner) value(v any) any {
	switch x := v.(type) {
	case string:
		return c.str(x)
	case []any:
		n := len(x)
		if n > c.items {
			x = x[:c.items]
		}
		out := make([]any, 0, len(x)+1)
		for _, e := range x {
			out = append(out, c.value(e))
		}
		if n > c.items {
			out = append(out, fmt.Sprintf("… %d more items left out (the command's own output has them all)", n-c.items))
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[c.str(k)] = c.value(c.field(k, e))
		}
		return out
	}
	return v // numbers (json.Number), booleans, null
}

// field redacts a scalar by its key: a decoded payload's
// {"password": "hunter2"} holds the secret in a string that says nothing
// of it, so the pair is redacted as the JSON member it was, by redact's own
// rules, and the value read back.
func (c *cleaner) field(k string, v any) any {
	switch v.(type) {
	case string, json.Number:
	default:
		return v
	}
	member, err := json.Marshal(map[string]any{k: v})
	if err != nil {
		return v
	}
	red := c.r.String(string(member))
	if red == string(member) {
		return v
	}
	var back map[string]any
	if json.Unmarshal([]byte(red), &back) != nil || len(back) != 1 {
		return redact.Placeholder("secret")
	}
	for _, nv := range back {
		return nv
	}
	return v
}

// cleanJSON shapes a document: within maxString and maxItems, else the
// tight bounds, else an error naming the size.
func cleanJSON(v any) (string, error) {
	for _, b := range [][2]int{{maxString, maxItems}, {tightString, tightItems}} {
		c := cleaner{limit: b[0], items: b[1]}
		text, err := encode(c.value(v))
		if err != nil {
			return "", err
		}
		if len(text) <= MaxResult {
			return text, nil
		}
	}
	return "", fmt.Errorf("the result is over %d KiB even cut down: narrow the request (a smaller sample, one group)", MaxResult>>10)
}

func encode(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// decodeAll reads the JSON values of out: one document, or JSON lines (a
// streaming command's), as an array.
func decodeAll(out []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var all []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		all = append(all, v)
	}
	switch len(all) {
	case 0:
		return nil, nil
	case 1:
		return all[0], nil
	}
	return all, nil
}

// errorLine is the error mfdlq prints on stderr under --output json.
type errorLine struct {
	Type    string `json:"type"`
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// failure says why a run failed, from its JSON error line, cleaned.
func failure(out Outcome) string {
	c := cleaner{limit: tightString * 5, items: tightItems}
	for _, line := range strings.Split(string(out.Stderr), "\n") {
		var e errorLine
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "error" {
			return fmt.Sprintf("mfdlq exited %d: %s", out.Code, c.str(e.Message))
		}
	}
	return fmt.Sprintf("mfdlq exited %d", out.Code)
}

// lines are a run's stderr lines, cleaned: a dry run's plan.
func lines(stderr []byte) []any {
	c := cleaner{limit: maxString, items: maxItems}
	out := []any{}
	for _, l := range strings.Split(strings.TrimRight(string(stderr), "\n"), "\n") {
		if l != "" {
			out = append(out, c.str(l))
		}
	}
	return out
}
