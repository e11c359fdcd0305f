package signature

import (
	"strings"
	"testing"
)

// TestSpokenSaysWhatOfWrote: every placeholder Of and
// maskValue write reads as words.
func TestSpokenSaysWhatOfWrote(t *testing.T) {
	got := Spoken(Of("ValidationError: order 12345 for a@b.io (3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f) rejected"))
	for _, raw := range []string{"<n>", "<uuid>", "<email>", "<"} {
		if strings.Contains(got, raw) {
			t.Errorf("Spoken left %s: %q", raw, got)
		}
	}
	if want := "(a number)"; !strings.Contains(got, want) {
		t.Errorf("Spoken = %q, want it to say %s", got, want)
	}
}
