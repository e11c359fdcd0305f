package signature

import "strings"

// An error raised while handling another (a TypeError in the handler of a
// call that timed out) or wrapping it (a listener's exception around a
// deserialization failure) names two errors; the first one — the root
// cause — is what happened to the message, and the one around it is how
// the consumer failed to cope. Each runtime writes the chain its own way:
//   - Python: the first traceback, then "During handling of the above
//     exception, another exception occurred:" (or "The above exception was
//     the direct cause of the following exception:") and the next;
//   - Java: the outer exception, then "Caused by: …" lines, the last the root;
//   - .NET: "Outer: … ---> Inner: …", the last " ---> " the innermost;
//   - Node: the outer error, then "[cause]: …" lines;
//   - one line, as Go and hand-made messages put it: "…: caused by: …".

var pythonChain = []string{
	"During handling of the above exception, another exception occurred:",
	"The above exception was the direct cause of the following exception:",
}

// Chain splits an error text into its root cause's headline and the
// headline of the error around it; outer is "" when the text names one
// error only.
func Chain(text string) (root, outer string) {
	text = strings.TrimSpace(text)
	if len(text) > maxHeadlineInput {
		text = strings.ToValidUTF8(text[:maxHeadlineInput], "")
	}
	for _, m := range pythonChain {
		if i := strings.Index(text, m); i >= 0 {
			first := strings.TrimSpace(text[:i])
			last := text[strings.LastIndex(text, m)+len(m):]
			return Headline(first), Headline(last)
		}
	}
	first, _, multi := strings.Cut(text, "\n")
	first = strings.TrimSpace(first)
	if multi {
		if c := lastPrefixed(text, "Caused by: "); c != "" {
			return c, first
		}
		if c := lastPrefixed(text, "[cause]: "); c != "" {
			return c, first
		}
	}
	if i := strings.LastIndex(text, " ---> "); i >= 0 {
		inner, _, _ := strings.Cut(text[i+len(" ---> "):], "\n")
		if inner = strings.TrimSpace(inner); inner != "" {
			outer, _, _ := strings.Cut(text[:i], "\n")
			return inner, strings.TrimSpace(outer)
		}
	}
	if !multi {
		lower := strings.ToLower(text)
		if i := strings.LastIndex(lower, "caused by: "); i > 0 {
			cause := strings.TrimRight(strings.TrimSpace(text[i+len("caused by: "):]), ")]")
			outer := strings.TrimRight(strings.TrimSpace(text[:i]), "([,;:- ")
			if cause != "" && outer != "" {
				return cause, outer
			}
		}
	}
	return "", ""
}

// lastPrefixed is the text after prefix on the last line that starts with
// it (spaces before it allowed).
func lastPrefixed(text, prefix string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i > 0; i-- {
		if c, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), prefix); ok && strings.TrimSpace(c) != "" {
			return strings.TrimSpace(c)
		}
	}
	return ""
}
