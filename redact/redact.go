// Package redact removes personal data and secrets from text before it goes
// into a report that will be pasted into a ticket: e-mail addresses, phone
// numbers, payment card numbers (Luhn-checked), IBANs (mod-97 checked),
// bearer and basic credentials, JWTs, AWS keys, PEM private keys, URL
// passwords and the whole value of any field whose key names a secret.
//
// It errs on the side of redacting: a report that hides an order number by
// mistake costs a look at the incident directory; a report that leaks a card
// number costs far more. The checksums (Luhn, mod 97) and card prefixes keep
// ordinary numbers such as order ids and epoch timestamps in clear; a
// candidate that fails them is retried on shorter windows, so a card number
// followed by a CVV or an amount, or an IBAN followed by a word, is still
// found. A Redactor with Carry remembers what it replaced and replaces it
// again wherever it shows up (carry.go): the two sides of a --transform's
// diff, where a program may move a password's value to a field named
// "note".
package redact

import (
	"regexp"
	"sort"
	"strings"
)

// Kinds of data the Redactor replaces, as they appear in placeholders.
const (
	Email      = "email"
	Phone      = "phone"
	Card       = "card"
	IBAN       = "iban"
	Token      = "token"
	JWT        = "jwt"
	AccessKey  = "aws-access-key"
	Secret     = "secret"
	PrivateKey = "private-key"
)

// Placeholder is what replaces a value of kind.
func Placeholder(kind string) string { return "[redacted:" + kind + "]" }

// Counts is how many values of each kind were redacted.
type Counts map[string]int

// Total is the number of values redacted.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Kinds returns the kinds redacted, sorted.
func (c Counts) Kinds() []string {
	out := make([]string, 0, len(c))
	for k, v := range c {
		if v > 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Redactor redacts text and counts what it replaced. The zero value is ready
// to use; it is not safe for concurrent use.
type Redactor struct {
	Counts Counts
	// Carry makes the Redactor remember every value it replaces and replace
	// it again wherever it shows up in later text, under any key or none: a
	// --transform that moves a password's value to a field named "note"
	// must not print on the after side what the before side redacted. One
	// Redactor per preview carries what it learnt across the messages and
	// both sides of each diff (see Known).
	Carry bool
	known map[string]string // value → kind, when Carry
	whole []string          // learnt secrets (lower case) whose pieces Known finds
}

// String returns s with every match replaced by its kind's placeholder.
// JSON documents held in JSON string fields are redacted as documents of
// their own, as deep as they nest (see nested).
func (r *Redactor) String(s string) string {
	if r.Counts == nil {
		r.Counts = Counts{}
	}
	s = r.redact(s, 0)
	if r.Carry {
		s = r.Known(s)
	}
	return s
}

// redact is String at a nesting depth: the documents inside string fields
// first, then the text rules over the whole.
func (r *Redactor) redact(s string, depth int) string {
	s = r.nested(s, depth)
	s, ids := protectIDs(s)
	lower := strings.ToLower(s)
	for _, ru := range rules {
		if ru.hints != nil && !containsAny(lower, ru.hints) {
			continue
		}
		s = ru.apply(s, r.Counts, r.learn)
	}
	// Last: what the rules took inside a secret's object keeps its kind.
	return r.containers(restoreIDs(s, ids))
}

// alreadyRedacted tells a value an earlier rule replaced: a placeholder, or
// an Authorization scheme followed by one ("Bearer [redacted:token]").
func alreadyRedacted(v string) bool {
	if i := strings.IndexAny(v, " \t"); i > 0 && strings.HasPrefix(strings.TrimLeft(v[i:], " \t"), "[redacted:") {
		scheme := strings.ToLower(v[:i])
		return scheme == "bearer" || scheme == "basic"
	}
	return strings.HasPrefix(v, "[redacted:")
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// apply replaces what ru finds in s. A rule's value is its last submatch
// when it has groups (what comes before — a key and its separator — stays),
// else the whole match; windows, when set, narrows a value to the spans that
// pass the rule's check.
func (ru rule) apply(s string, counts Counts, learn func(v, kind string)) string {
	locs := ru.re.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		if n := len(loc) / 2; n > 1 {
			start, end = loc[2*(n-1)], loc[2*(n-1)+1]
		}
		// A value already replaced by an earlier rule is not counted twice.
		if start < 0 || start < last || alreadyRedacted(s[start:end]) {
			continue
		}
		if ru.keyOK != nil && len(loc) >= 4 && !ru.keyOK(s[loc[2]:loc[3]]) {
			continue
		}
		spans := [][2]int{{0, end - start}}
		if ru.windows != nil {
			spans = ru.windows(s[start:end])
		}
		for _, sp := range spans {
			b.WriteString(s[last : start+sp[0]])
			b.WriteString(Placeholder(ru.kind))
			learn(s[start+sp[0]:start+sp[1]], ru.kind)
			last = start + sp[1]
			counts[ru.kind]++
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// uuidRe is an identifier AWS and most systems write as a UUID (a
// MessageId, a request id): its groups of digits are not a phone number or
// a card, though a group such as 003999061822 reads like "00" and an
// international number, and two groups joined by a hyphen can pass Luhn.
var uuidRe = regexp.MustCompile(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)

// protectIDs puts a stand-in no rule matches (a NUL, letters, a NUL) in
// place of each UUID, so that the rules never take part of one; a rule
// that takes a whole stand-in (a UUID that is a secret's value) redacts
// it. A text that already holds a NUL is left as it is.
func protectIDs(s string) (string, []string) {
	if strings.IndexByte(s, 0) >= 0 || !uuidRe.MatchString(s) {
		return s, nil
	}
	var ids []string
	s = uuidRe.ReplaceAllStringFunc(s, func(id string) string {
		ids = append(ids, id)
		return "\x00" + idTag(len(ids)-1) + "\x00"
	})
	return s, ids
}

// restoreIDs puts back the UUIDs protectIDs took out.
func restoreIDs(s string, ids []string) string {
	for i, id := range ids {
		s = strings.Replace(s, "\x00"+idTag(i)+"\x00", id, 1)
	}
	return s
}

// idTag is i in letters only: no digit for the card or phone rules.
func idTag(i int) string {
	b := []byte("id")
	for {
		b = append(b, byte('a'+i%26))
		i /= 26
		if i == 0 {
			return string(b)
		}
	}
}
