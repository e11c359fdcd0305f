package cmd

import (
	"regexp"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"
)

// sgr is a colour or style escape that mfdlq's own renderer writes.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// no-control [-sgr] stdout|stderr|FILE asserts that the last command's
// stdout, stderr, or a file holds no control character but newline and tab,
// and no bidi, zero-width or other invisible format character: nothing
// that data could use to drive a terminal. With -sgr, mfdlq's own colour
// escapes (ESC [ ... m) are allowed, and nothing else.
func cmdNoControl(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("no-control does not support !")
	}
	allowSGR := len(args) > 0 && args[0] == "-sgr"
	if allowSGR {
		args = args[1:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: no-control [-sgr] stdout|stderr|FILE")
	}
	text := ts.ReadFile(args[0])
	if allowSGR {
		text = sgr.ReplaceAllString(text, "")
	}
	for i, r := range text {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp):
			lo, hi := max(0, i-40), min(len(text), i+40)
			ts.Fatalf("%s holds %U at byte %d: %q", args[0], r, i, text[lo:hi])
		case r == unicode.ReplacementChar:
			// Invalid UTF-8 reaches here as U+FFFD; mfdlq escapes it as \xNN.
			ts.Fatalf("%s holds invalid UTF-8 at byte %d", args[0], i)
		}
	}
}
