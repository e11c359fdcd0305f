package untrusted

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// parse parses src as GitHub-flavoured markdown, as tickets render it.
func parse(src string) ast.Node {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	return md.Parser().Parse(text.NewReader([]byte(src)))
}

// blocks are n's children. goldmark's ChildCount can count a paragraph
// that a table replaced, so the list is walked.
func blocks(n ast.Node) []ast.Node {
	var out []ast.Node
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = append(out, c)
	}
	return out
}

// renderText renders src as HTML with CommonMark and GFM tables (no
// linkify, which would turn a URL into a link that shows the URL).
func renderText(t *testing.T, src string) string {
	t.Helper()
	var b strings.Builder
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))
	if err := md.Convert([]byte(src), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// inlineText is what a reader sees of an inline node: its text, with
// escapes resolved.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := c.(type) {
		case *ast.Text:
			b.Write(x.Segment.Value(src))
		case *ast.String:
			b.Write(x.Value)
		case *ast.AutoLink:
			b.Write(x.Label(src))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// hostile are values built to break out of markdown.
var hostile = []string{
	"plain",
	"",
	" ",
	"  two  ",
	"`",
	"``",
	"```",
	"a`b``c```d",
	"`leading",
	"trailing`",
	" `both` ",
	"```\n</details><img src=https://evil.example/x.png>\n# heading",
	"x\n\n## Root cause: none, safe to redrive",
	"<script>alert(1)</script>",
	"<!-- comment -->",
	"[click](javascript:alert(1))",
	"![img](https://evil.example/p.png)",
	"*bold* _em_ ~~gone~~",
	"# heading",
	"## heading",
	"- item",
	"+ item",
	"1. item",
	"12) item",
	"---",
	"===",
	"> quote",
	"| a | b |",
	"&amp; &#x41; &copy;",
	`back\slash\`,
	`\|`,
	"trailing backslash\\",
	"\x1b]0;X\x07\x1b[2J",
	"rtl \u202e gnp.exe",
	"tab\there",
	"cr\rhere",
	"<https://evil.example>",
	"http://autolink.example/path",
	"    indented code",
	"\u00a0nbsp",
	"[^1]: footnote",
	"- [ ] task",
	"x<y>z",
	"{{template}}",
	"line one\r\nline two",
	"\xff\xfe invalid",
}

func TestCodeRendersAsItself(t *testing.T) {
	for _, s := range hostile {
		src := "before " + Code(s) + " after\n"
		doc := parse(src)
		para, ok := doc.FirstChild().(*ast.Paragraph)
		if !ok || len(blocks(doc)) != 1 {
			t.Fatalf("Code(%q): %q is not one paragraph", s, src)
		}
		var spans []*ast.CodeSpan
		for c := para.FirstChild(); c != nil; c = c.NextSibling() {
			switch x := c.(type) {
			case *ast.CodeSpan:
				spans = append(spans, x)
			case *ast.Text:
			default:
				t.Fatalf("Code(%q): %q holds a %s", s, src, c.Kind())
			}
		}
		if len(spans) != 1 {
			t.Fatalf("Code(%q): %q holds %d code spans", s, src, len(spans))
		}
		want := Terminal(s)
		if s == "" {
			want = " "
		}
		if got := inlineText(spans[0], []byte(src)); got != want {
			t.Errorf("Code(%q) renders %q, want %q", s, got, want)
		}
	}
}

func TestCodeExamples(t *testing.T) {
	for in, want := range map[string]string{
		"version=2":   "`version=2`",
		"a`b":         "``a`b``",
		"`x`":         "`` `x` ``",
		"a```b":       "````a```b````",
		" padded ":    "`  padded  `",
		"two\nlines":  "`two\\nlines`",
		"esc\x1b[31m": "`esc\\x1b[31m`",
	} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCellsStayInTheirColumn(t *testing.T) {
	for _, s := range hostile {
		src := "| code | text |\n|---|---|\n| " + CodeCell(s) + " | " + Text(s) + " |\n"
		doc := parse(src)
		tbl, ok := doc.FirstChild().(*east.Table)
		if !ok || len(blocks(doc)) != 1 {
			t.Fatalf("cells %q: %q is not one table", s, src)
		}
		row := tbl.LastChild()
		if _, ok := row.(*east.TableRow); !ok || len(blocks(row)) != 2 {
			t.Fatalf("cells %q: %q: body row has %d cells", s, src, len(blocks(row)))
		}
		code, txt := row.FirstChild(), row.LastChild()
		wantCode := Cell(s)
		if s == "" {
			wantCode = " "
		}
		if s != "" && code.FirstChild().Kind() != ast.KindCodeSpan {
			t.Fatalf("CodeCell(%q) = %q: no code span", s, CodeCell(s))
		}
		if got := inlineText(code, []byte(src)); got != wantCode {
			t.Errorf("CodeCell(%q) renders %q, want %q", s, got, wantCode)
		}
		assertOnlyText(t, "Text "+s, txt)
		want := "<td>" + htmlEscaper.Replace(strings.Trim(Terminal(s), " \t")) + "</td>"
		if html := renderText(t, src); !strings.Contains(html, want) {
			t.Errorf("Text(%q) in a cell renders %q, want %q", s, html, want)
		}
	}
}

// assertOnlyText fails when n holds anything but text: no emphasis, link,
// image, code, HTML or strikethrough came from data.
func assertOnlyText(t *testing.T, what string, n ast.Node) {
	t.Helper()
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		switch c.Kind() {
		case ast.KindText, ast.KindString, ast.KindAutoLink, ast.KindParagraph, east.KindTableCell:
		default:
			if c != n {
				t.Fatalf("%s: renders a %s node", what, c.Kind())
			}
		}
		return ast.WalkContinue, nil
	})
}

func TestTextRendersAsItself(t *testing.T) {
	for _, s := range hostile {
		// At the start of a line, where headings and lists begin.
		src := Text(s) + "\n"
		doc := parse(src)
		want := strings.Trim(Terminal(s), " \t")
		if want == "" {
			if len(blocks(doc)) != 0 {
				t.Errorf("Text(%q) = %q renders %d blocks", s, Text(s), len(blocks(doc)))
			}
			continue
		}
		para, ok := doc.FirstChild().(*ast.Paragraph)
		if (!ok || len(blocks(doc)) != 1) && !strings.HasPrefix(s, "    ") {
			t.Fatalf("Text(%q) = %q: not one paragraph but %s", s, Text(s), doc.FirstChild().Kind())
		}
		if !ok {
			continue // four spaces: an indented code block, which is text too
		}
		assertOnlyText(t, "Text("+s+")", para)
		if got := renderText(t, src); got != "<p>"+htmlEscaper.Replace(want)+"</p>\n" {
			t.Errorf("Text(%q) = %q renders %q, want %q", s, Text(s), got, want)
		}
	}
}

func TestFencedHoldsEverything(t *testing.T) {
	for _, s := range hostile {
		src := "before\n\n" + Fenced(s, "text") + "\nafter\n"
		doc := parse(src)
		if len(blocks(doc)) != 3 {
			t.Fatalf("Fenced(%q): %q renders %d blocks, want 3", s, src, len(blocks(doc)))
		}
		block, ok := doc.FirstChild().NextSibling().(*ast.FencedCodeBlock)
		if !ok {
			t.Fatalf("Fenced(%q): second block is %s", s, doc.FirstChild().NextSibling().Kind())
		}
		var got strings.Builder
		lines := block.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			got.Write(seg.Value([]byte(src)))
		}
		want := Block(s)
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if got.String() != want {
			t.Errorf("Fenced(%q) holds %q, want %q", s, got.String(), want)
		}
		if lang := string(block.Language([]byte(src))); lang != "text" {
			t.Errorf("Fenced(%q) language %q", s, lang)
		}
	}
}

func TestFencedInfoCannotBreakTheFence(t *testing.T) {
	got := Fenced("x", "go`` \x1b evil")
	if !strings.HasPrefix(got, "```go\\x1bevil\n") {
		t.Fatalf("Fenced info = %q", got)
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// A code span, whatever s holds, is one span rendering s.
		src := "a " + Code(s) + " b\n"
		doc := parse(src)
		para, ok := doc.FirstChild().(*ast.Paragraph)
		if !ok || len(blocks(doc)) != 1 || len(blocks(para)) != 3 || para.FirstChild().NextSibling().Kind() != ast.KindCodeSpan {
			t.Fatalf("Code(%q) = %q does not parse as one code span", s, Code(s))
		}
		want := Terminal(s)
		if s == "" {
			want = " "
		}
		if got := inlineText(para.FirstChild().NextSibling(), []byte(src)); got != want {
			t.Fatalf("Code(%q) renders %q, want %q", s, got, want)
		}
		assertTerminalSafe(t, "Code", Code(s), true, false)

		// A fenced block is never closed by its content.
		src = "a\n\n" + Fenced(s, "") + "\nb\n"
		doc = parse(src)
		if len(blocks(doc)) != 3 || doc.FirstChild().NextSibling().Kind() != ast.KindFencedCodeBlock {
			t.Fatalf("Fenced(%q) = %q does not parse as one block", s, Fenced(s, ""))
		}
		assertTerminalSafe(t, "Fenced", Fenced(s, ""), true, true)

		// Text opens nothing.
		src = "a " + Text(s) + "\n"
		doc = parse(src)
		if len(blocks(doc)) != 1 {
			t.Fatalf("Text(%q) = %q renders %d blocks", s, Text(s), len(blocks(doc)))
		}
		assertOnlyText(t, "Text", doc.FirstChild())
		assertTerminalSafe(t, "Text", Text(s), true, false)
		if got, want := renderText(t, src), "<p>"+htmlEscaper.Replace(strings.TrimRight("a "+Terminal(s), " \t"))+"</p>\n"; got != want {
			t.Fatalf("Text(%q) renders %q, want %q", s, got, want)
		}
	})
}
