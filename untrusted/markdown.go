package untrusted

import "strings"

// Code returns s as a markdown code span that renders as s itself: it is
// sanitised with Terminal first (so a newline shows as \n and the span stays
// on one line), delimited by a backtick run longer than any in s, and padded
// with a space when s starts or ends with a backtick or would lose a space
// to CommonMark's stripping. Nothing in s can close the span.
func Code(s string) string { return codeSpan(Terminal(s)) }

// CodeCell is Code for a GFM table cell: a pipe would end the cell even
// inside a code span, so it is escaped as \| (which GFM renders as |).
func CodeCell(s string) string {
	return strings.ReplaceAll(codeSpan(Cell(s)), "|", `\|`)
}

func codeSpan(s string) string {
	if s == "" {
		return "` `"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	first, last := s[0], s[len(s)-1]
	if first == '`' || last == '`' || (first == ' ' && last == ' ' && strings.Trim(s, " ") != "") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// Fenced returns s as a fenced code block, ending with a newline: the
// content is sanitised with Block, and the fence is a backtick run longer
// than any in s (at least three), so no line of s can close it. info, the
// block's language, is sanitised and stripped of backticks and spaces. The
// block must start at column 0 outside any list or quote: a container would
// end at the first unindented line of s.
func Fenced(s, info string) string {
	s = Block(s)
	n := max(3, longestRun(s, '`')+1)
	fence := strings.Repeat("`", n)
	info = strings.Map(func(r rune) rune {
		if r == '`' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, Cell(info))
	var b strings.Builder
	b.Grow(len(s) + 2*n + len(info) + 3)
	b.WriteString(fence)
	b.WriteString(info)
	b.WriteByte('\n')
	b.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(fence)
	b.WriteByte('\n')
	return b.String()
}

// Text returns s as markdown text that renders as s itself, on one line:
// it is sanitised with Terminal (a newline shows as \n), then every
// character markdown gives a meaning to inline — \ ` * _ [ ] < > & | ~ ! —
// is backslash-escaped, so s can open no emphasis, link, image, autolink,
// HTML tag, entity or table cell; and a leading #, +, -, =, or digits and
// a dot, which would make a heading, a list or a thematic break at the
// start of a line, are escaped too. It is safe in a table cell.
func Text(s string) string {
	s = Terminal(s)
	lead := leadingSpecial(s)
	clean := lead < 0
	for j := 0; j < len(s) && clean; j++ {
		clean = !isInlineSpecial(s[j]) || intraword(s, j)
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for j := 0; j < len(s); j++ {
		c := s[j]
		if (isInlineSpecial(c) && !intraword(s, j)) || j == lead {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// intraword reports an underscore between two ASCII letters or digits
// (order_id): CommonMark never opens or closes emphasis there, so it stays
// unescaped and the raw report reads as the data does.
func intraword(s string, j int) bool {
	return s[j] == '_' && j > 0 && j < len(s)-1 && isAlnum(s[j-1]) && isAlnum(s[j+1])
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isInlineSpecial reports the ASCII characters Text always escapes.
func isInlineSpecial(c byte) bool {
	switch c {
	case '\\', '`', '*', '_', '[', ']', '<', '>', '&', '|', '~', '!':
		return true
	}
	return false
}

// leadingSpecial is the offset of the character that would make s a block
// (heading, list item, ordered list item, setext underline, thematic break)
// if s began a line, or -1. Leading spaces are skipped as CommonMark does.
func leadingSpecial(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i == len(s) {
		return -1
	}
	switch c := s[i]; {
	case c == '#' || c == '+' || c == '-' || c == '=':
		return i
	case c >= '0' && c <= '9':
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j < len(s) && (s[j] == '.' || s[j] == ')') {
			return j
		}
	}
	return -1
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
