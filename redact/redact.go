// Package redact removes personal data and secrets from text before it goes
// into a report that will be pasted into a ticket: e-mail addresses, phone
// numbers, payment card numbers (Luhn-checked), IBANs (mod-97 checked),
// bearer tokens, JWTs, AWS access keys and secret-looking values.
//
// It errs on the side of redacting: a report that hides an order number by
// mistake costs a look at the incident directory; a report that leaks a card
// number costs far more. The checksums (Luhn, mod 97) keep ordinary numbers
// such as order ids and epoch timestamps in clear.
package redact

import (
	"regexp"
	"sort"
	"strings"
)

// Kinds of data the Redactor replaces, as they appear in placeholders.
const (
	Email     = "email"
	Phone     = "phone"
	Card      = "card"
	IBAN      = "iban"
	Token     = "token"
	JWT       = "jwt"
	AccessKey = "aws-access-key"
	Secret    = "secret"
)

// Placeholder is what replaces a value of kind.
func Placeholder(kind string) string { return "[redacted:" + kind + "]" }

// rule finds candidates with re; check (when set) confirms a match, so that
// e.g. a 16-digit order number that fails the Luhn check stays. keep is the
// number of leading submatches kept in clear (a key and its separator).
type rule struct {
	kind  string
	re    *regexp.Regexp
	check func(string) bool
	keep  int
}

// rules run in order: tokens first, because their alphabet overlaps
// everything else; phones last, after card numbers are gone, so a card's
// digits are never half-taken as a phone number.
var rules = []rule{
	{kind: JWT, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`)},
	{kind: Token, re: regexp.MustCompile(`(?i)(\bbearer\s+)([A-Za-z0-9._~+/-]{8,}=*)`), keep: 1},
	{kind: AccessKey, re: regexp.MustCompile(`\b(?:AKIA|ASIA|AIDA|AROA|AGPA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`)},
	{kind: Secret, re: regexp.MustCompile(`(?i)((?:secret|password|passwd|pwd|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key|client[_-]?secret|session[_-]?token)["']?\s*[:=]\s*["']?)([^"'\s,;}&]{4,})`), keep: 1},
	{kind: Secret, re: regexp.MustCompile(`(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=])`), check: mixedCase40},
	{kind: Email, re: regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)},
	{kind: IBAN, re: regexp.MustCompile(`\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b`), check: validIBAN},
	{kind: Card, re: regexp.MustCompile(`\b\d(?:[ -]?\d){12,18}\b`), check: validCard},
	{kind: Phone, re: regexp.MustCompile(`(?i)((?:phone|mobile|telephone|tel|msisdn|cell)["']?\s*[:=]\s*["']?)(\+?[\d][\d ().-]{5,}\d)`), keep: 1},
	{kind: Phone, re: regexp.MustCompile(`\+\d[\d ().-]{6,20}\d`), check: phoneDigits},
	{kind: Phone, re: regexp.MustCompile(`(?:\(\d{2,4}\) ?\d{3,4}[ .-]\d{3,4}|\b\d{3}[.-]\d{3}[.-]\d{4})\b`)},
}

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
}

// String returns s with every match replaced by its kind's placeholder.
func (r *Redactor) String(s string) string {
	if r.Counts == nil {
		r.Counts = Counts{}
	}
	for _, ru := range rules {
		s = ru.apply(s, r.Counts)
	}
	return s
}

func (ru rule) apply(s string, counts Counts) string {
	locs := ru.re.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		// The value is the last submatch when the rule has groups, else the
		// whole match.
		start, end := loc[0], loc[1]
		if n := len(loc) / 2; n > 1 {
			start, end = loc[2*(n-1)], loc[2*(n-1)+1]
		}
		if start < 0 || (ru.check != nil && !ru.check(s[start:end])) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Placeholder(ru.kind))
		last = end
		counts[ru.kind]++
	}
	b.WriteString(s[last:])
	return b.String()
}

func digitsOf(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// validCard accepts 13–19 digits that pass the Luhn check and start like a
// card (2–6: Mastercard, Amex/Diners, Visa, Mastercard, Discover). Epoch
// timestamps start with 1 and stay.
func validCard(s string) bool {
	d := digitsOf(s)
	if len(d) < 13 || len(d) > 19 || d[0] < '2' || d[0] > '6' {
		return false
	}
	return luhn(d)
}

// luhn reports whether the digit string passes the Luhn checksum.
func luhn(d string) bool {
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// validIBAN checks the ISO 13616 mod-97 checksum.
func validIBAN(s string) bool {
	s = strings.ReplaceAll(s, " ", "")
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	rearranged := s[4:] + s[:4]
	rem := 0
	for _, c := range rearranged {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// phoneDigits accepts an international number of 8–15 digits (E.164).
func phoneDigits(s string) bool {
	n := len(digitsOf(s))
	return n >= 8 && n <= 15
}

// mixedCase40 recognises an AWS secret access key's shape: 40 base64
// characters mixing upper case, lower case and digits. Hex digests (lower
// case only) stay.
func mixedCase40(s string) bool {
	var upper, lower, digit bool
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}
