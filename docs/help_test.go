package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// TestLongHelp: a command's help says what it changes in AWS, ends in one
// newline, and a command no page marks is a panic that names the marker,
// never an empty help.
func TestLongHelp(t *testing.T) {
	for _, c := range []string{"triage", "mcp", "inspect", "redrive"} {
		h := Long(c)
		if !strings.Contains(h, "What it changes in AWS") {
			t.Errorf("Long(%q) does not say what it changes in AWS:\n%s", c, h)
		}
		if !strings.HasSuffix(h, "\n") || strings.HasSuffix(h, "\n\n") {
			t.Errorf("Long(%q) does not end in one newline: %q", c, h[max(0, len(h)-40):])
		}
	}
	if e := Example("redrive"); !strings.HasPrefix(e, "  mfdlq redrive ") || strings.HasSuffix(e, "\n") {
		t.Errorf("Example(redrive) = %q, want indented command lines and no final newline", e)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "<!-- help: no-such-command -->") {
			t.Errorf("Long of an unknown command: recovered %v, want a panic naming <!-- help: no-such-command -->", r)
		}
	}()
	Long("no-such-command")
}

// TestParseMarkers: a marked block is read to its closing fence and no
// further; a marker without a text block, a block never closed and a
// command marked on two pages are refused with the page named.
func TestParseMarkers(t *testing.T) {
	page := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	text, where, err := parse(fstest.MapFS{
		"a.md": page("# a\n\n<!-- help: a — says a -->\n```text\nline 1\n\n  mfdlq a\n```\n\nprose\n```text\nnot help\n```\n<!-- example: a -->\n```text\n  mfdlq a --x\n```\n"),
		"b.md": page("# b\n\n```text\n<!-- help: b -->\n```\n"),
		"c.md": page("<!-- help: c -->\n```text\n```"),
		"d.md": page("<!-- example: d -->\n```text\n  x\n```"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := text["help: a"]; got != "line 1\n\n  mfdlq a" {
		t.Errorf("help: a = %q", got)
	}
	if got := text["example: a"]; got != "  mfdlq a --x" {
		t.Errorf("example: a = %q", got)
	}
	if got, ok := text["help: c"]; !ok || got != "" {
		t.Errorf("help: c = %q, %v; want an empty block read at the end of its page", got, ok)
	}
	if got := text["example: d"]; got != "  x" {
		t.Errorf("example: d = %q, want a block closed by the page's last line", got)
	}
	if where["help: a"] != "a.md" || len(text) != 4 {
		t.Errorf("parsed %v from %v, want a's two blocks, c's and d's (a marker inside a block is not one)", text, where)
	}
	for name, bad := range map[string]fstest.MapFS{
		"no block":  {"a.md": page("# a\n\n<!-- help: a -->\n\n```text\nx\n```\n")},
		"unclosed":  {"a.md": page("<!-- help: a -->\n```text\nx\n")},
		"twice":     {"a.md": page("<!-- help: a -->\n```text\nx\n```\n"), "b.md": page("<!-- help: a -->\n```text\ny\n```\n")},
		"same page": {"a.md": page("<!-- example: a -->\n```text\nx\n```\n<!-- example: a -->\n```text\ny\n```\n")},
	} {
		if _, _, err := parse(bad); err == nil || !strings.Contains(err.Error(), "a.md") && !strings.Contains(err.Error(), "b.md") {
			t.Errorf("%s: err = %v, want a refusal naming the page", name, err)
		}
	}
}

// repeatRun is how many words in a row a page may share with a help text:
// a shared term ("a DLQ with its own redrive policy", 8 words) is the
// house's vocabulary; ten words in a row are a sentence written twice.
const repeatRun = 10

var (
	linkTarget = regexp.MustCompile(`\]\([^)]*\)`)
	// quoted is a span in straight double quotes on one line: what the
	// program prints ("stop and go back to step 2: …", a JSON value), whose
	// text of record is the Go string, so a page may quote it as a help does.
	quoted = regexp.MustCompile(`"[^"\n]*"`)
)

// words is t in lower case without markdown's marks, a word a token.
func words(t string) []string {
	t = linkTarget.ReplaceAllString(strings.ToLower(t), "]")
	var out []string
	for _, f := range strings.Fields(t) {
		f = strings.Trim(f, "`*_[](){}<>\"'.,;:!?|—–-#")
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// TestPagesDoNotRepeatTheHelp: outside the marked blocks, no page of docs/
// repeats ten words in a row of any command's help or examples: the page
// that holds a help shows it once and explains around it, and the other
// pages link to it.
func TestPagesDoNotRepeatTheHelp(t *testing.T) {
	load()
	runs := map[string]string{} // ten words of a help → its key
	for key, text := range parsed.text {
		w := words(text)
		for i := 0; i+repeatRun <= len(w); i++ {
			runs[strings.Join(w[i:i+repeatRun], " ")] = key
		}
	}
	if len(runs) < 1000 {
		t.Fatalf("only %d runs of help text: the markers were not read", len(runs))
	}
	names, err := filepath.Glob("*.md")
	if err != nil || len(names) < 15 {
		t.Fatalf("pages: %v, %v", names, err)
	}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		w := words(quoted.ReplaceAllString(outsideBlocks(string(b)), `""`))
		for i := 0; i+repeatRun <= len(w); i++ {
			if key, ok := runs[strings.Join(w[i:i+repeatRun], " ")]; ok {
				j := i + repeatRun
				for j < len(w) && runs[strings.Join(w[j-repeatRun+1:j+1], " ")] == key {
					j++
				}
				t.Errorf("%s repeats %d words of <!-- %s -->: %q — link to it instead", name, j-i, key, strings.Join(w[i:j], " "))
				i = j
			}
		}
	}
}

// outsideBlocks is page without its marked blocks (marker, fences and text).
func outsideBlocks(page string) string {
	var b strings.Builder
	lines := strings.Split(page, "\n")
	for i := 0; i < len(lines); i++ {
		if _, ok := marker(lines[i]); ok {
			i += 2 // the marker and the opening fence
			for i < len(lines) && lines[i] != "```" {
				i++
			}
			continue
		}
		b.WriteString(lines[i] + "\n")
	}
	return b.String()
}
