package untrusted

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitisers(t *testing.T) {
	tests := []struct {
		name, in           string
		terminal, cell, bl string
	}{
		{"clean ascii", "orders-dlq v2", "orders-dlq v2", "orders-dlq v2", "orders-dlq v2"},
		{"clean unicode", "café — 東京 ✓ 🙂", "café — 東京 ✓ 🙂", "café — 東京 ✓ 🙂", "café — 東京 ✓ 🙂"},
		{"empty", "", "", "", ""},
		{"osc title and clear", "\x1b]0;X\x07\x1b[2J", `\x1b]0;X\x07\x1b[2J`, `\x1b]0;X\x07\x1b[2J`, `\x1b]0;X\x07\x1b[2J`},
		{"osc 8 link", "\x1b]8;;https://evil\x1b\\click\x1b]8;;\x1b\\", `\x1b]8;;https://evil\x1b\click\x1b]8;;\x1b\`, `\x1b]8;;https://evil\x1b\click\x1b]8;;\x1b\`, `\x1b]8;;https://evil\x1b\click\x1b]8;;\x1b\`},
		{"nul bs del", "a\x00b\x08c\x7f", `a\x00b\x08c\x7f`, `a\x00b\x08c\x7f`, `a\x00b\x08c\x7f`},
		{"newline", "a\nb", `a\nb`, `a\nb`, "a\nb"},
		{"carriage return", "ok\rFAIL", `ok\rFAIL`, `ok\rFAIL`, `ok\rFAIL`},
		{"tab", "a\tb", "a\tb", `a\tb`, "a\tb"},
		{"c1 csi", "a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`, `a\u009b2Jb`},
		{"c1 nel", "a\u0085b", `a\u0085b`, `a\u0085b`, `a\u0085b`},
		{"rlo", "invoice\u202etxt.exe", `invoice\u202etxt.exe`, `invoice\u202etxt.exe`, `invoice\u202etxt.exe`},
		{"all embeddings", "\u202a\u202b\u202c\u202d\u202e", `\u202a\u202b\u202c\u202d\u202e`, `\u202a\u202b\u202c\u202d\u202e`, `\u202a\u202b\u202c\u202d\u202e`},
		{"isolates", "\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`, `\u2066\u2067\u2068\u2069`, `\u2066\u2067\u2068\u2069`},
		{"marks", "\u200e\u200f\u061c", `\u200e\u200f\u061c`, `\u200e\u200f\u061c`, `\u200e\u200f\u061c`},
		{"zero width", "a\u200bb\u200cc\u200dd\u2060e\ufefff", `a\u200bb\u200cc\u200dd\u2060e\ufefff`, `a\u200bb\u200cc\u200dd\u2060e\ufefff`, `a\u200bb\u200cc\u200dd\u2060e\ufefff`},
		{"line separators", "a\u2028b\u2029c", `a\u2028b\u2029c`, `a\u2028b\u2029c`, `a\u2028b\u2029c`},
		{"tag characters", "a\U000E0041b", `a\U000e0041b`, `a\U000e0041b`, `a\U000e0041b`},
		{"soft hyphen", "pay\u00adpal", `pay\u00adpal`, `pay\u00adpal`, `pay\u00adpal`},
		{"invalid utf8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`, `a\xffb\xc3`},
		{"overlong encoding", "\xc0\xaf", `\xc0\xaf`, `\xc0\xaf`, `\xc0\xaf`},
		{"surrogate half", "\xed\xa0\x80", `\xed\xa0\x80`, `\xed\xa0\x80`, `\xed\xa0\x80`},
		{"replacement char is valid", "a\ufffdb", "a\ufffdb", "a\ufffdb", "a\ufffdb"},
		{"backslash kept", `C:\path\x1b`, `C:\path\x1b`, `C:\path\x1b`, `C:\path\x1b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Terminal(tt.in); got != tt.terminal {
				t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.terminal)
			}
			if got := Cell(tt.in); got != tt.cell {
				t.Errorf("Cell(%q) = %q, want %q", tt.in, got, tt.cell)
			}
			if got := Block(tt.in); got != tt.bl {
				t.Errorf("Block(%q) = %q, want %q", tt.in, got, tt.bl)
			}
		})
	}
}

func TestCleanInputIsNotCopied(t *testing.T) {
	s := strings.Repeat("orders-dlq café ", 64)
	if n := testing.AllocsPerRun(100, func() { _ = Terminal(s); _ = Cell(s); _ = Block(s) }); n != 0 {
		t.Fatalf("sanitising a clean string allocated %.0f times, want 0", n)
	}
}

// assertTerminalSafe fails when s holds a byte a terminal would act on.
func assertTerminalSafe(t *testing.T, what, s string, allowTab, allowNewline bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s = %q: invalid UTF-8", what, s)
	}
	for _, r := range s {
		switch {
		case r == '\t' && allowTab, r == '\n' && allowNewline:
		case r < 0x20, r == 0x7f, unsafeRune(r):
			t.Fatalf("%s = %q: holds %U", what, s, r)
		}
	}
}

func FuzzSanitisers(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J", "\u202e", "a\nb\tc\rd", "\xff\xfe", "\u200d\U000E0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		term, cell, block := Terminal(s), Cell(s), Block(s)
		assertTerminalSafe(t, "Terminal", term, true, false)
		assertTerminalSafe(t, "Cell", cell, false, false)
		assertTerminalSafe(t, "Block", block, true, true)
		if Terminal(term) != term || Cell(cell) != cell || Block(block) != block {
			t.Fatalf("sanitisers are not idempotent on %q", s)
		}
		if firstUnsafe(s, keepTab) < 0 && term != s {
			t.Fatalf("Terminal changed clean %q to %q", s, term)
		}
	})
}

func BenchmarkTerminal(b *testing.B) {
	clean := strings.Repeat(`{"version":2,"order_id":"ord-104200","sku":"SKU-4821"} `, 20)
	dirty := strings.Repeat("{\"version\":\"\x1b]0;X\x07\u202e\"} ", 20)
	b.Run("clean", func(b *testing.B) {
		b.SetBytes(int64(len(clean)))
		for b.Loop() {
			_ = Terminal(clean)
		}
	})
	b.Run("dirty", func(b *testing.B) {
		b.SetBytes(int64(len(dirty)))
		for b.Loop() {
			_ = Terminal(dirty)
		}
	})
}
