package sqsjson

import (
	"bytes"
	"encoding/json"
	"testing"
)

// quoteSeeds are strings a hostile message can hold: HTML, quotes,
// control bytes, DEL, multi-byte runes, the JavaScript line ends and
// invalid UTF-8.
var quoteSeeds = []string{
	`{"order_id":"o-1","version":2}`,
	"text <&> \"q\" \\ \x00\x01\b\f\n\r\t\x1f\x7f é 😀 \u2028\u2029 \xff\xfe bad",
	"", "plain-ascii-id-0123", "\xc3", "zz\x00",
}

// FuzzAppendString: any string, valid UTF-8 or not, is written as
// encoding/json writes it: AppendString as an Encoder with
// SetEscapeHTML(false), AppendStringHTML as json.Marshal.
func FuzzAppendString(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q):\n got %s\nwant %s", s, got, want)
		}
		wantHTML, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendStringHTML([]byte("x"), s); !bytes.Equal(got, append([]byte("x"), wantHTML...)) {
			t.Fatalf("AppendStringHTML(%q):\n got %s\nwant x%s", s, got, wantHTML)
		}
	})
}
