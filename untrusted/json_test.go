package untrusted

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestJSONEscapesWhatATerminalMustNotGet: a JSON line holding bidi
// controls, zero-width characters, C1 controls and tag characters comes
// out with none of them raw, still valid JSON that decodes to exactly the
// same string; a clean line is returned as it is.
func TestJSONEscapesWhatATerminalMustNotGet(t *testing.T) {
	hostile := "orders\u202egpj.exe\u200b\u2066x\u2069\u0085\u00ad\U000E0041\ufeff é 日本 \u2028"
	b, err := json.Marshal(map[string]string{"alarm": hostile})
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(b)
	for _, r := range string(got) {
		if r >= utf8.RuneSelf && unsafeRune(r) {
			t.Errorf("U+%04X left raw in %s", r, got)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["alarm"] != hostile {
		t.Fatalf("%s does not decode to the same string: %v %q", got, err, back["alarm"])
	}
	if want := `{"alarm":"orders\u202egpj.exe\u200b\u2066x\u2069\u0085\u00ad\udb40\udc41\ufeff é 日本 \u2028"}`; string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	clean := []byte(`{"type":"summary","moved":3,"queue":"é"}`)
	if out := JSON(clean); &out[0] != &clean[0] {
		t.Error("a clean line was copied")
	}
}
