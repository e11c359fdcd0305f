package classify

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/signature"
)

// errorHeadline is how evidence quotes an error: a multi-line or JSON
// error by its headline ("ZodError: 1 validation issue: …"), not by its
// first line or its raw JSON.
func errorHeadline(text string) string {
	if !strings.ContainsAny(text, "\n{[") {
		return text
	}
	return signature.Headline(text)
}

// sharedValue weighs the values a group's validation errors reject. One
// value that (nearly) every message fails on is a value the producer now
// sends and the consumer's schema does not allow: a contract change,
// poison. Values that differ from message to message are bad data.
func sharedValue(g *acc, said meaning) (meaning, string) {
	r := g.rejected
	if r.msgs == 0 {
		return said, ""
	}
	if len(r.hashes) > 1 {
		return said, fmt.Sprintf("the rejected values differ from message to message (%d distinct in %d messages): bad data, not a contract change", len(r.hashes), r.msgs)
	}
	if g.n < 2 || float64(r.msgs) < contractShare*float64(g.n) {
		return said, ""
	}
	line := fmt.Sprintf("%d of %d fail validation on the same value %q: a value every message shares is a contract change, not bad data — poison", r.msgs, g.n, r.first)
	if said.verdict == VerdictPoison {
		return said, line
	}
	words := said.words
	if words == "" {
		words = "validation"
	}
	return meaning{verdict: VerdictPoison, words: words,
		why: "every message is rejected for the same value: the producer sends what the consumer's schema does not allow"}, line
}

// rejected counts the values a group's validation errors name.
type rejected struct {
	msgs   int                 // messages whose error names a value
	first  string              // the first such value
	hashes map[uint64]struct{} // distinct values, up to maxRejected
}

const maxRejected = 64

func (r *rejected) add(v string) {
	if v == "" {
		return
	}
	r.msgs++
	if r.first == "" {
		r.first = v
	}
	if r.hashes == nil {
		r.hashes = map[uint64]struct{}{}
	}
	if len(r.hashes) < maxRejected {
		r.hashes[hashString(v)] = struct{}{}
	}
}
