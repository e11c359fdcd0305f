package classify

import (
	"github.com/mfdlq/mfdlq/signature"
	"regexp"
	"strings"
)

// meaning is what an error text says about its failure: a verdict, and the
// words of the text that say it.
type meaning struct {
	verdict Verdict // "" when the text says nothing clear
	words   string  // as they appear in the normalised text, e.g. "timed out"
	why     string  // what that class of error means, for the evidence
}

// errorClasses are checked in order, and the first class with a match
// wins: a text that blames the message's shape ("ValidationError:
// unsupported version 2") is poison before anything else, and a dependency
// failure ("customer service unavailable") is transient before a missing
// record is data. Phrases match whole words of the normalised text
// (lowercase, CamelCase split, punctuation as spaces), so
// "CustomerNotFound" reads "customer not found".
var errorClasses = []struct {
	verdict Verdict
	why     string
	re      *regexp.Regexp
}{
	{VerdictPoison, "the consumer cannot read the message as it is", phrases(
		`deserializ\w*`, `unmarshal\w*`, `(cannot|can not|could not|couldn t|failed to|unable to) (parse|decode|deserialize)`,
		`parse (error|exception|failure)`, `json (decode|parse|syntax)\w*`, `invalid json`, `malformed`, `syntax error`,
		`unexpected (token|end of json|character)`, `(unknown|unsupported|unrecognized|invalid) (schema )?version`,
		`version \S+ (is )?not supported`, `schema\w*`, `type error`, `class cast`, `cannot read propert\w*`,
		`unrecognized (field|property)`, `no such (field|property)`)},
	// A missing target or permission (EventBridge's NO_RESOURCE,
	// NO_PERMISSIONS, a DynamoDB ResourceNotFoundException) is the
	// infrastructure's fault, not the message's: fix it, then redrive.
	{VerdictTransient, "a dependency failed or could not be reached; the message itself may be fine", phrases(
		`timed out`, `time ?outs?`, `deadline exceeded`, `throttl\w*`, `too many requests`, `rate exceeded`, `slow down`,
		`(limit|throughput) exceeded`, `connection (refused|reset|closed|timed out)`, `econnrefused`, `econnreset`, `etimedout`,
		`broken pipe`, `socket hang up`, `unavailable`, `internal server error`, `bad gateway`, `gateway time ?out`,
		`(http|status|status code|code|error|returned|response) 5\d\d`, `5\d\d (internal|bad|service|gateway)`, `temporar\w*`,
		`try again`, `resource not found`, `no resource`, `no permissions?`, `access denied`, `not authori[sz]ed`)},
	{VerdictData, "the message names a record that is missing or breaks a rule: correct the data", phrases(
		`not found`, `does not exist`, `no such \w+`, `validation\w*`, `constraint\w*`, `violat\w*`, `duplicate (key|entry|record)`,
		`already exists`, `foreign key`, `unique (key|index)`, `invalid [a-z_]+`, `insufficient \w+`, `out of stock`)},
}

func phrases(ps ...string) *regexp.Regexp {
	return regexp.MustCompile(`\b(` + strings.Join(ps, "|") + `)\b`)
}

// maxMeaningLines bounds the lines of a multi-line error read for its class.
const maxMeaningLines = 40

// meaningOf reads an error text (or, lacking one, a signature): its
// headline first, then, when that says nothing clear, every other line of
// a multi-line text — the class may be on any line (a banner first, the
// exception after).
func meaningOf(text string) meaning {
	if m := classOf(normalise(signature.Headline(text))); m.verdict != "" {
		return m
	}
	lines := strings.SplitN(text, "\n", maxMeaningLines+1)
	if len(lines) < 2 {
		return meaning{}
	}
	for _, l := range lines[:min(len(lines), maxMeaningLines)] {
		if m := classOf(normalise(l)); m.verdict != "" {
			return m
		}
	}
	return meaning{}
}

func classOf(n string) meaning {
	if n == "" {
		return meaning{}
	}
	for _, c := range errorClasses {
		if w := c.re.FindString(n); w != "" {
			return meaning{verdict: c.verdict, words: w, why: c.why}
		}
	}
	return meaning{}
}

// normalise lowercases text, splits CamelCase words and turns punctuation
// into spaces: "CustomerNotFound: id C-1" → "customer not found id c 1".
func normalise(text string) string {
	var b strings.Builder
	b.Grow(len(text) + 8)
	space := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		lower := c >= 'a' && c <= 'z'
		upper := c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		switch {
		case upper:
			// A new word at a lower→Upper step, or at the last capital of
			// an acronym: "HTTPError" → "http error".
			if i > 0 && !space && (isLower(text[i-1]) || i+1 < len(text) && isLower(text[i+1]) && isUpper(text[i-1])) {
				b.WriteByte(' ')
			}
			b.WriteByte(c + 'a' - 'A')
			space = false
		case lower, digit, c >= 0x80:
			b.WriteByte(c)
			space = false
		case !space:
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
