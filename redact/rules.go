package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
)

// rule finds candidates with re; windows (when set) returns the spans of a
// candidate that really are a kind's value — e.g. the card inside
// "4111 1111 1111 1111 123" — or none, so that a 16-digit order number that
// fails the Luhn check stays.
type rule struct {
	kind    string
	re      *regexp.Regexp
	windows func(string) [][2]int
	keyOK   func(string) bool // when set, the first group (the key) must pass
	// hints, when set, are lower-case words one of which the text must hold
	// for the rule to run: a cheap test that spares most texts the costly
	// case-insensitive key patterns.
	hints []string
}

// secretHints are the words secretWord is built on.
var secretHints = []string{"pass", "secret", "token", "key", "authorization", "credential", "session", "cookie", "pwd", "cvv", "cvc", "pin"}

// secretWord is a key naming a secret, with whatever prefix or suffix an
// identifier gives it (access_token, db_password, X-Api-Key, sessionId).
// cvv, cvc and pin are whole words only: "pin" is inside "shipping".
const secretWord = `(?:[A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|authorization|credential|private[_-]?key|session|cookie)[A-Za-z0-9_.-]*|pwd|cvv2?|cvc2?|pin)`

// rules run in order: whole blocks, credentials and key-named values first, because
// their contents overlap everything else; then tokens, whose alphabet
// overlaps the rest; phones last, after card numbers are gone, so a card's
// digits are never half-taken as a phone number.
var rules = []rule{
	{kind: PrivateKey, re: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?s:.*?)-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]*)`)},
	// Credentials of an HTTP Authorization header, wherever they appear;
	// before the key rules, so that "Authorization: Bearer x" counts a token.
	{kind: Token, re: regexp.MustCompile(`(?i)(\bbearer\s+)([A-Za-z0-9._~+/-]{8,}=*)`)},
	{kind: Token, re: regexp.MustCompile(`(?i)(\bbasic\s+)([A-Za-z0-9+/]{4,}=*)`), windows: basicCredentials},
	// JSON, and JSON quoted inside a JSON string (an SNS or EventBridge
	// envelope): the whole string value, spaces and all.
	{kind: Secret, re: regexp.MustCompile(`(?i)("` + secretWord + `"\s*:\s*")((?:[^"\\]|\\.)*)"`), hints: secretHints},
	{kind: Secret, re: regexp.MustCompile(`(?i)(\\"` + secretWord + `\\"\s*:\s*\\")((?:[^"\\]|\\[^"])*)\\"`), hints: secretHints},
	{kind: Secret, re: regexp.MustCompile(`(?i)("` + secretWord + `"\s*:\s*)(-?[0-9][0-9.eE+-]*)`), hints: secretHints},
	// key=value, key: value, key="quoted value", <key>value</key>.
	{kind: Secret, re: regexp.MustCompile(`(?i)(\b` + secretWord + `\s*[:=]\s*")([^"]*)"`), hints: secretHints},
	{kind: Secret, re: regexp.MustCompile(`(?i)(\b` + secretWord + `\s*[:=]\s*')([^']*)'`), hints: secretHints},
	{kind: Secret, re: regexp.MustCompile(`(?i)(\b` + secretWord + `\s*=\s*)([^\s"',;&}]+)`), hints: secretHints},
	{kind: Secret, re: regexp.MustCompile(`(?i)(\b` + secretWord + `[ \t]*:[ \t]*)([^\s"',;}\\][^"',;}\r\n\\]*[^\s"',;}\\]|[^\s"',;}\\])`), keyOK: notAnError, hints: secretHints},
	{kind: Secret, re: regexp.MustCompile(`(?i)(<` + secretWord + `>)([^<]*)<`), hints: secretHints},
	// URL userinfo, on any host: scheme://user:password@host.
	{kind: Secret, re: regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://)([^/\s@"'<>]+)@`)},
	{kind: JWT, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`)},
	{kind: AccessKey, re: regexp.MustCompile(`\b(?:AKIA|ASIA|AIDA|AROA|AGPA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`)},
	{kind: Secret, re: regexp.MustCompile(`(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=])`), windows: whole(mixedCase40)},
	{kind: Email, re: regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)},
	{kind: IBAN, re: regexp.MustCompile(`(?i)\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,32}\b`), windows: ibanWindows},
	{kind: Card, re: regexp.MustCompile(`\b[0-9]+(?:[ -][0-9]+)*\b`), windows: cardWindows},
	{kind: Phone, re: regexp.MustCompile(`(?i)((?:phone|mobile|telephone|tel|msisdn|cell)[A-Za-z_]*["']?\s*[:=]\s*["']?)(\+?[\d][\d ().-]{5,}\d)`)},
	{kind: Phone, re: regexp.MustCompile(`(?:\+|\b00)\d[\d ().-]{6,20}\d`), windows: whole(phoneDigits)},
	{kind: Phone, re: regexp.MustCompile(`(?:\(\d{2,4}\) ?\d{3,4}[ .-]\d{3,4}|\b\d{3}[ .-]\d{3}[ .-]\d{4})\b`)},
	// National numbers with a trunk 0, spaced or dotted: 06 12 34 56 78,
	// 020 7946 0958, 0612 345 678.
	{kind: Phone, re: regexp.MustCompile(`\b0\d{1,4}(?:[ .-]\d{2,4}){2,4}\b`), windows: whole(nationalDigits)},
}

// whole turns a check of a whole candidate into a windows function.
func whole(check func(string) bool) func(string) [][2]int {
	return func(s string) [][2]int {
		if check(s) {
			return [][2]int{{0, len(s)}}
		}
		return nil
	}
}

// notAnError keeps "InvalidTokenError: token expired" in clear: in "key:
// value" text, a key that names an error is a message, not a secret.
func notAnError(key string) bool {
	k := strings.ToLower(strings.TrimRight(key, " \t:"))
	return !strings.HasSuffix(k, "error") && !strings.HasSuffix(k, "exception")
}

// basicCredentials accepts a Basic auth value: base64 of "user:password".
// "basic validation" stays.
func basicCredentials(s string) [][2]int {
	v := strings.TrimRight(s, "=")
	dec, err := base64.RawStdEncoding.DecodeString(v)
	if err != nil || !strings.Contains(string(dec), ":") {
		return nil
	}
	return [][2]int{{0, len(s)}}
}

// phoneDigits accepts an international number of 8–15 digits (E.164).
func phoneDigits(s string) bool {
	n := len(digitsOf(s))
	return n >= 8 && n <= 15
}

// nationalDigits accepts a national number of 9–11 digits with its 0.
func nationalDigits(s string) bool {
	n := len(digitsOf(s))
	return n >= 9 && n <= 11
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

func digitsOf(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}
