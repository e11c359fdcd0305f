package classify

import (
	"fmt"
	"math/bits"
	"strings"
)

// Value patterns: what the characters of a field's string values look
// like. A field can keep its name and its type and still change: S3 sends
// object keys URL-encoded ("reports/ACME+Corp/Q1+%28final%29.csv"), an id
// turns from digits into a UUID, a code from upper to lower case. The
// baseline profile counts, per field, the messages whose values show each
// pattern; a pattern (nearly) all of a group shows and no baseline message
// does — or that every baseline message shows and the group lacks — is a
// drift like a type drift.

// Patterns of a string value, one bit each.
const (
	patEncoded  = 1 << iota // a %XX escape
	patPlus                 // a '+' (a space, URL-encoded as a form)
	patSpace                // a space
	patDigits               // digits only
	patUUID                 // 8-4-4-4-12 hex
	patUpper                // an upper-case letter
	patLower                // a lower-case letter
	patNonASCII             // a byte past ASCII (or a \u escape)
	nPatterns   = 8
)

var patternNames = [nPatterns]string{"URL-encoded (%XX escapes)", "'+' in place of spaces", "spaces", "digits only", "UUID-like",
	"upper-case letters", "lower-case letters", "non-ASCII characters"}

// lostPatterns are the patterns whose absence is a drift: an id that is no
// longer digits or a UUID, a code whose case changed.
const lostPatterns = patDigits | patUUID | patUpper | patLower

// minPatternSupport is how many baseline messages must have a string at a
// field before its patterns are trusted.
const minPatternSupport = 10

// patternsOf reads the raw content of a JSON string (without its quotes).
func patternsOf(v []byte) uint8 {
	if len(v) == 0 {
		return 0
	}
	var p uint8
	digits := true
	for i, c := range v {
		switch {
		case c >= '0' && c <= '9':
			continue
		case c == '%' && i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]):
			p |= patEncoded
		case c == '\\' && i+1 < len(v) && v[i+1] == 'u':
			p |= patNonASCII
		default:
			p |= bytePattern[c]
		}
		digits = false
	}
	if digits {
		p |= patDigits
	}
	if isUUIDShaped(v) {
		p |= patUUID
	}
	return p
}

// bytePattern is the pattern one byte shows by itself: a letter's case, a
// '+', a space, a byte past ASCII (digits show none: a value of digits
// only is patDigits; '%' and '\\' depend on what follows them).
var bytePattern = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = patLower
		t[c-'a'+'A'] = patUpper
	}
	t['+'], t[' '] = patPlus, patSpace
	for c := 0x80; c <= 0xff; c++ {
		t[c] = patNonASCII
	}
	return t
}()

// isUUIDShaped: 36 bytes with 8-4-4-4-12 dashes.
func isUUIDShaped(v []byte) bool {
	return len(v) == 36 && v[8] == '-' && v[13] == '-' && v[18] == '-' && v[23] == '-'
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// patternCounts counts, per pattern, the messages that show it at one
// field, and the messages with a string there; mask and seen track the
// current message, so each counts once.
type patternCounts struct {
	strs int32
	pat  [nPatterns]int32
	mask uint8
	seen bool
}

// add counts one string value of the current message; reset starts a new
// message.
func (c *patternCounts) add(p uint8) {
	if !c.seen {
		c.seen = true
		c.strs++
	}
	for n := p &^ c.mask; n != 0; n &= n - 1 {
		c.pat[bits.TrailingZeros8(n)]++
	}
	c.mask |= p
}

func (c *patternCounts) reset() { c.mask, c.seen = 0, false }

// patternDrift compares a group's patterns at a field with the baseline's:
// the pattern most of the group gained (none of the baseline has it), else
// one every baseline message has that most of the group lost. URL
// encoding reads as one pattern, '+' or %XX.
func patternDrift(path string, b, s *patternCounts, n, baseN int, here string) (Drift, bool) {
	if b.strs < minPatternSupport || s.strs == 0 {
		return Drift{}, false
	}
	best, count := gainedPattern(b, s)
	lost := false
	if best < 0 {
		best, count = lostPattern(b, s)
		lost = true
	}
	if best < 0 {
		return Drift{}, false
	}
	name := patternNames[best]
	if !lost && (best == 0 || best == 1) && s.pat[0]+s.pat[1] > 0 {
		name = "URL-encoded ('+' or %XX)"
		count = max(s.pat[0], s.pat[1])
	}
	d := Drift{Field: path, Kind: DriftPattern, Value: name, Count: int(count), Of: n,
		Contract: float64(count) >= contractShare*float64(n)}
	if lost {
		d.Value = "no " + name
		d.Baseline = fmt.Sprintf("%s in %d of %d baseline messages", name, b.pat[best], baseN)
		d.Text = fmt.Sprintf("%s: %s, without them in %d of %d %s", path, d.Baseline, count, n, here)
	} else {
		d.Baseline = fmt.Sprintf("in 0 of %d baseline messages (%d with a string there)", baseN, b.strs)
		d.Text = fmt.Sprintf("%s: %s in %d of %d %s, %s — a value pattern the baseline never has", path, name, count, n, here, d.Baseline)
	}
	if d.Contract && strings.HasSuffix(path, "s3.object.key") && !lost && (best == 0 || best == 1) {
		d.Text += " (S3 sends object keys URL-encoded; a consumer that does not decode them asks for keys that do not exist)"
	}
	d.Text += driftTail(d.Contract)
	return d, true
}

// gainedPattern is the pattern most of the group's strings at a field
// show (s) and none of the baseline's (b), with how many show it; -1 when
// there is none.
func gainedPattern(b, s *patternCounts) (best int, count int32) {
	best = -1
	for p := range nPatterns {
		if s.pat[p] > count && b.pat[p] == 0 {
			best, count = p, s.pat[p]
		}
	}
	return best, count
}

// lostPattern is the first of lostPatterns that (nearly) every baseline
// string shows and most of the group's lack, with how many lack it; -1
// when there is none.
func lostPattern(b, s *patternCounts) (best int, count int32) {
	for p := range nPatterns {
		bit := uint8(1) << p
		if bit&lostPatterns != 0 && b.pat[p]*100 >= b.strs*99 && float64(s.pat[p]) <= (1-contractShare)*float64(s.strs) {
			return p, s.strs - s.pat[p]
		}
	}
	return -1, 0
}
