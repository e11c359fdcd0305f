package tagvalue

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodeRoundTripsInTagCharacters(t *testing.T) {
	for _, s := range []string{
		"", "investigating: the gateway's 503s since 02:04 — ana", "a=b", "==", "100%",
		"\x1b[31mred\x1b[0m\n\ttab", "日本語", "plain words only", "\xff\xfe",
	} {
		enc := Encode(s)
		for _, r := range enc {
			if !Allowed(r) {
				t.Errorf("Encode(%q) = %q holds %q, which a tag may not", s, enc, r)
			}
		}
		if got := EncodedLen(s); got != len(enc) {
			t.Errorf("EncodedLen(%q) = %d, len(Encode) = %d", s, got, len(enc))
		}
		dec, err := Decode(enc)
		if !utf8.ValidString(s) {
			if err == nil {
				t.Errorf("Decode(Encode(%q)) accepted bytes that are not UTF-8", s)
			}
			continue
		}
		if err != nil || dec != s {
			t.Errorf("Decode(Encode(%q)) = %q, %v", s, dec, err)
		}
	}
	if got := Encode("gateway's — a=b"); got != "gateway=27s =E2=80=94 a=3Db" {
		t.Errorf("Encode = %q", got)
	}
}

func TestDecodeRefusesWhatEncodeCannotWrite(t *testing.T) {
	for _, v := range []string{"=", "=4", "=G1", "=4a", "a,b", "tab\there", "=FF"} {
		if got, err := Decode(v); err == nil {
			t.Errorf("Decode(%q) = %q, want an error", v, got)
		}
	}
}

// TestSafeIsTheLeaseCodec pins Safe to what redrive/lease's tagSafe
// writes (lease_test's holders), so the lease can switch to it unchanged.
func TestSafeIsTheLeaseCodec(t *testing.T) {
	for in, want := range map[string]string{
		"ana":                      "ana",
		"ana smith":                "ana_smith",
		"a=b,c":                    "a_b_c",
		"":                         "unknown",
		"arn:aws:sts::1:x/y@z.com": "arn:aws:sts::1:x/y@z.com",
		"héllo":                    "h_llo",
		strings.Repeat("x", 60):    strings.Repeat("x", 48),
	} {
		if got := Safe(in, 48); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzEncode(f *testing.F) {
	f.Add("investigating — ana")
	f.Fuzz(func(t *testing.T, s string) {
		enc := Encode(s)
		if EncodedLen(s) != len(enc) {
			t.Fatalf("EncodedLen mismatch for %q", s)
		}
		for _, r := range enc {
			if !Allowed(r) {
				t.Fatalf("Encode(%q) holds %q", s, r)
			}
		}
		if dec, err := Decode(enc); utf8.ValidString(s) && (err != nil || dec != s) {
			t.Fatalf("round trip of %q: %q, %v", s, dec, err)
		}
	})
}
