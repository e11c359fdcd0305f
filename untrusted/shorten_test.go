package untrusted

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShorten(t *testing.T) {
	long := strings.Repeat("a", 500)
	tests := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"short stays", "abc", 10, "abc"},
		{"exact stays", "abcdefghij", 10, "abcdefghij"},
		{"long cut with hash", long, 60, strings.Repeat("a", 60-len("…[sha256:xxxxxxxx, 500 bytes]")) + "…[" + hashOf(long) + ", 500 bytes]"},
		{"tiny limit keeps the suffix", long, 5, "…[" + hashOf(long) + ", 500 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Shorten(tt.in, tt.limit); got != tt.want {
				t.Fatalf("Shorten = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestShortenKeepsLongValuesApart(t *testing.T) {
	a := strings.Repeat("x", 300) + "A"
	b := strings.Repeat("x", 300) + "B"
	if Shorten(a, 80) == Shorten(b, 80) {
		t.Fatalf("two values sharing a prefix shorten alike: %q", Shorten(a, 80))
	}
	first := Shorten(a, 80)
	for i := 0; i < 3; i++ {
		if again := Shorten(a, 80); again != first {
			t.Fatalf("Shorten is not stable: %q then %q", first, again)
		}
	}
}

func TestShortenCutsOnCharacters(t *testing.T) {
	s := strings.Repeat("東", 100)
	for limit := 40; limit < 60; limit++ {
		got := Shorten(s, limit)
		if !utf8.ValidString(got) || len(got) > limit {
			t.Fatalf("Shorten(%d) = %q (%d bytes)", limit, got, len(got))
		}
	}
}

func keys(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("field_%04d", i)
	}
	return strings.Join(parts, ",")
}

func TestFingerprint(t *testing.T) {
	many := "version=2 type=order {" + keys(2000) + "}"
	tests := []struct {
		name, in, want string
	}{
		{"short stays", "version=2 {customer,items,order_id,version}", "version=2 {customer,items,order_id,version}"},
		{"unparseable stays", "unparseable", "unparseable"},
		{"2000 keys", many, "version=2 type=order {field_0000,field_0001,field_0002,field_0003,field_0004,field_0005,…+1994 keys, " + hashOf(many) + "}"},
		{"no fields", "{" + keys(300) + "}", "{field_0000,field_0001,field_0002,field_0003,field_0004,field_0005,field_0006,field_0007,…+292 keys, " + hashOf("{"+keys(300)+"}") + "}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Fingerprint(tt.in)
			if got != tt.want {
				t.Fatalf("Fingerprint = %q, want %q", got, tt.want)
			}
			if len(got) > FingerprintLimit {
				t.Fatalf("Fingerprint is %d bytes, want at most %d", len(got), FingerprintLimit)
			}
		})
	}
}

func TestFingerprintBounded(t *testing.T) {
	huge := strings.Repeat("v", 100_000)
	for _, fp := range []string{
		"version=" + huge + " {a,b}",
		"version=" + huge + " type=" + huge + " {" + keys(50) + "}",
		"{" + huge + "}",
		"{" + huge + "," + huge + "}",
		"version=x {y {" + keys(400) + "}",
		huge,
		"type={\"a\":1} {" + keys(400) + "}",
	} {
		got := Fingerprint(fp)
		if len(got) > FingerprintLimit || !utf8.ValidString(got) {
			t.Errorf("Fingerprint(%.40q…) = %q (%d bytes)", fp, got, len(got))
		}
		if !strings.Contains(got, hashOf(fp)) && !strings.Contains(got, "sha256:") {
			t.Errorf("Fingerprint(%.40q…) = %q names no hash", fp, got)
		}
	}
}

func FuzzFingerprint(f *testing.F) {
	f.Add("version=2 {" + keys(100) + "}")
	f.Add("{a,b}")
	f.Fuzz(func(t *testing.T, fp string) {
		got := Fingerprint(fp)
		if len(fp) <= FingerprintLimit && got != fp {
			t.Fatalf("Fingerprint changed a short %q to %q", fp, got)
		}
		if len(got) > FingerprintLimit+60 {
			t.Fatalf("Fingerprint(%q) = %q: %d bytes", fp, got, len(got))
		}
	})
}

func TestHead(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"card 4539578763621486 ok", 100, "card 4539578763621486 ok"},
		{"card 4539578763621486 ok", 20, "card "},
		{"card 4539578763621486 ok", 5, "card "},
		{"card 4539578763621486 ok", 4, "card"},
		{`{"a":"4539578763621486"}`, 12, `{"a":"`},
		{"é", 1, ""},
	}
	for _, tt := range tests {
		if got := Head(tt.s, tt.n); got != tt.want {
			t.Errorf("Head(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
