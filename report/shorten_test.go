package report

import (
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/redact"
)

// secretsToCut are values whose every part is personal or secret, with
// the text that marks them as such. A cut anywhere inside one must not
// leave a run of it on show: a card cut before its Luhn digit can be
// rebuilt from the rest.
var secretsToCut = []struct{ kind, before, secret, after string }{
	{"card", "card ", "4539578763621486", " ok"},
	{"card spaced", "pan ", "4539 5787 6362 1486", " exp"},
	{"iban", "iban ", "DE89370400440532013000", " paid"},
	{"email", "to ", "ana.perez.lopez@example.org", " now"},
	{"jwt", "sent ", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", " ok"},
	{"bearer", "Authorization: Bearer ", "Zq81mXwr7TnP0kLs2vBd9", " ok"},
	{"aws key", "key ", "AKIAIOSFODNN7QWERTYU", " used"},
}

// shown is what a shortened value shows of its data: the part before the
// hash suffix, whose digits and letters come from the hash, not the data.
func shown(s string) string {
	if i := strings.Index(s, "…["); i >= 0 {
		return s[:i]
	}
	return s
}

// leaks reports the first run of 4 characters of secret that out shows.
func leaks(out, secret string) string {
	core := strings.NewReplacer(" ", "", "-", "").Replace(secret)
	flat := strings.NewReplacer(" ", "", "-", "").Replace(shown(out))
	for i := 0; i+4 <= len(core); i++ {
		if strings.Contains(flat, core[i:i+4]) {
			return core[i : i+4]
		}
	}
	return ""
}

// TestShortenAfterRedaction cuts a text holding each secret at every
// position — the secret's start, its middle, one before its last
// character — through every way the report shortens a value, and finds
// nothing of the secret on show.
func TestShortenAfterRedaction(t *testing.T) {
	t.Parallel()
	for _, sc := range secretsToCut {
		for pad := 0; pad < 24; pad += 7 {
			text := strings.Repeat("x", pad) + " " + sc.before + sc.secret + sc.after
			for limit := 1; limit <= len(text)+2; limit++ {
				inc := &Incident{red: &redact.Redactor{}}
				if got := inc.bounded(text, limit); leaks(got, sc.secret) != "" {
					t.Fatalf("%s: bounded(%q, %d) = %q shows %q", sc.kind, text, limit, got, leaks(got, sc.secret))
				}
			}
		}
		{
			// A value longer than maxScan is shortened from its head: the
			// cut at the limit falls inside the secret at every offset.
			for _, limit := range []int{maxValue} { // the others take the same path
				for at := limit - len(sc.secret) - 48; at <= limit; at++ {
					long := strings.Repeat("y ", limit)[:at] + sc.before + sc.secret + sc.after + strings.Repeat(" z", maxScan/2)
					inc := &Incident{red: &redact.Redactor{}}
					if got := inc.bounded(long, limit); leaks(got, sc.secret) != "" {
						t.Fatalf("%s: long value cut at %d, secret at %d: shows %q", sc.kind, limit, at, leaks(got, sc.secret))
					}
				}
			}
		}
	}
}

// TestLimitsBelowScan keeps every limit far below maxScan: the head of a
// long value is redacted whole, and a secret straddling the head's end
// (dropped by tokenBoundary when it has a boundary) is never in view.
func TestLimitsBelowScan(t *testing.T) {
	t.Parallel()
	for _, l := range []int{maxName, maxValue, maxExcerpt, maxLogLine, maxCommand, maxOperator} {
		if l > maxScan-1024 {
			t.Errorf("limit %d is within 1 KiB of maxScan %d", l, maxScan)
		}
	}
}

// TestFingerprintRedactedBeforeShortened holds fingerprints whose
// shortening falls inside a secret at every offset: a field value of the
// schema fields (cut at 40 bytes), the fields part of a fingerprint that
// is all fields (cut at 120), and a key list.
func TestFingerprintRedactedBeforeShortened(t *testing.T) {
	t.Parallel()
	for _, sc := range secretsToCut {
		if strings.Contains(sc.secret, " ") || strings.Contains(sc.before, " ") && sc.kind == "bearer" {
			continue // fields are split on spaces: those are covered by the text cases
		}
		for pad := 0; pad < 130; pad++ {
			x := strings.Repeat("x", pad)
			fps := []string{
				"version=2 ref=" + x + ":" + sc.secret + " {a,b,c}",
				"version=2 note=" + x + " ref=" + sc.secret + " " + strings.Repeat("k=v ", 20),
				"version=2 {" + x + "," + sc.secret + "," + strings.Repeat("key,", 40) + "z}",
				"{" + strings.Repeat("key_number,", pad/10) + sc.secret + ",b}",
			}
			for _, fp := range fps {
				inc := &Incident{red: &redact.Redactor{}}
				if got := inc.fingerprint(fp); leaks(got, sc.secret) != "" {
					t.Fatalf("%s: fingerprint(%q) = %q shows %q", sc.kind, fp, got, leaks(got, sc.secret))
				}
			}
		}
	}
}
