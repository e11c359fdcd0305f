package redrive

import "strings"

// SelectionText names the selection as given: "--filter F, --group G".
func (r Request) SelectionText() string {
	var parts []string
	for _, f := range [...]struct{ flag, v string }{{"--filter", r.Filter}, {"--sent-after", r.SentAfter}, {"--sent-before", r.SentBefore}, {"--group", r.Group}} {
		if f.v != "" {
			parts = append(parts, f.flag+" "+f.v)
		}
	}
	return strings.Join(parts, ", ")
}
