package transform

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"sort"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/mfdlq/mfdlq/redact"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Bounds of one example's diff: a payload of a megabyte shows its first
// lines, never all of them.
const (
	maxDiffInput = 64 << 10 // bytes of each side read
	maxDiffSide  = 400      // lines of each side compared
	maxDiffLines = 30       // lines an example shows
	maxLineBytes = 160      // bytes one line shows
	diffContext  = 2        // unchanged lines kept around a change
)

// diffText renders one side of a diff: the payload pretty-printed in
// gojq's key order (so both sides line up whatever order the original had),
// then the message attributes when they changed, each value redacted by r
// as its name says (redact.Redactor.Value), bounded; redacted again by the
// caller as one document (see diffSides).
func diffText(payload []byte, attrs map[string]sqsjson.MessageAttributeValue, withAttrs bool, r *redact.Redactor) string {
	text := prettyPayload(payload)
	if withAttrs {
		text += "\n" + attributeLines(attrs, r)
	}
	if len(text) > maxDiffInput {
		text = untrusted.Head(text, maxDiffInput) + "\n…"
	}
	return text
}

// diffSides redacts both sides of a diff with r, which carries what it
// learns (redact.Redactor.Carry): a value redacted on either side, under
// a key that names a secret or by its shape, is redacted on the other too
// whatever field the program moved it to. The before side is redacted
// again once the after side has been read, for what only the after side
// taught.
func diffSides(before, after string, r *redact.Redactor) (a, b []string) {
	before = r.String(before)
	after = r.String(after)
	before = r.Known(before)
	return sideLines(before), sideLines(after)
}

// sideLines splits a redacted side into at most maxDiffSide lines.
func sideLines(text string) []string {
	lines := strings.Split(text, "\n")
	if len(lines) > maxDiffSide {
		lines = append(lines[:maxDiffSide], "…")
	}
	return lines
}

// prettyPayload indents a JSON payload in gojq's key order; a text payload
// is shown as it is.
func prettyPayload(p []byte) string {
	if !json.Valid(p) {
		return string(p)
	}
	d := json.NewDecoder(bytes.NewReader(p))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return string(p)
	}
	b, err := gojq.Marshal(v)
	var buf bytes.Buffer
	if err != nil || json.Indent(&buf, b, "", "  ") != nil {
		return string(p)
	}
	return buf.String()
}

// learnAttributes teaches r the values of attrs, shown or not: a program
// may move an attribute's secret into the payload under a name that says
// nothing, with the attributes themselves unchanged (and so not shown).
func learnAttributes(attrs map[string]sqsjson.MessageAttributeValue, r *redact.Redactor) {
	attributeLines(attrs, r)
}

// attributeLines lists message attributes one a line, by name, each value
// redacted by r as its name says.
func attributeLines(attrs map[string]sqsjson.MessageAttributeValue, r *redact.Redactor) string {
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("message attributes:")
	for _, n := range names {
		a := attrs[n]
		v := base64.StdEncoding.EncodeToString(a.BinaryValue)
		if a.StringValue != nil {
			v = *a.StringValue
		}
		b.WriteString("\n  " + n + " (" + a.DataType + "): " + r.Value(n, v))
	}
	return b.String()
}

// diffLines is a line diff of a and b ("  " same, "- " only in a, "+ "
// only in b) keeping diffContext unchanged lines around each change, each
// line sanitised for a terminal and cut, at most maxDiffLines in all.
func diffLines(a, b []string) []string {
	ops := lcsDiff(a, b)
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if op[0] != ' ' {
			for j := max(0, i-diffContext); j <= min(len(ops)-1, i+diffContext); j++ {
				keep[j] = true
			}
		}
	}
	var out []string
	skipped := false
	for i, op := range ops {
		if !keep[i] {
			skipped = true
			continue
		}
		if skipped && len(out) > 0 {
			out = append(out, "  …")
		}
		skipped = false
		out = append(out, op[:2]+untrusted.Terminal(untrusted.Shorten(op[2:], maxLineBytes)))
	}
	if len(out) > maxDiffLines {
		out = append(out[:maxDiffLines], "  … (more changes)")
	}
	return out
}

// lcsDiff is the longest-common-subsequence diff of two bounded line
// lists, as "  ", "- " or "+ " prefixed lines.
func lcsDiff(a, b []string) []string {
	n, m := len(a), len(b)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, "  "+a[i])
			i, j = i+1, j+1
		case l[i+1][j] >= l[i][j+1]:
			out = append(out, "- "+a[i])
			i++
		default:
			out = append(out, "+ "+b[j])
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, "- "+a[i])
	}
	for ; j < m; j++ {
		out = append(out, "+ "+b[j])
	}
	return out
}
