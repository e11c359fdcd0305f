package redrive

import (
	"fmt"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/plural"
)

// HeadLines are what a replay of f (path: --from-file as given) says
// before its plan, in order: where its lines go, the lines refused
// (warnings), the file and what earlier runs of the incident moved, the
// undo's note (a warning), the originals kept back, the undo's figures
// and the parts read one after another.
func (r *Replay) HeadLines(f *archive.File, path string) []EndLine {
	var out []EndLine
	for _, l := range r.Lines() {
		out = append(out, EndLine{Text: l})
	}
	for _, rf := range r.Routes.Refused {
		out = append(out, EndLine{Warn: true, Text: rf.Line()})
	}
	undo := r.Undo
	out = append(out, EndLine{Text: fmt.Sprintf("from: %s (%s, %d moved by earlier runs of this incident)", path, plural.Of(f.Count, "message"), f.Count-r.Source.Left()-undo.Left)})
	if undo.Note != "" {
		out = append(out, EndLine{Warn: true, Text: undo.Note})
	}
	for _, l := range []string{undo.OriginalsLine(path, r.Routes.Dests), undo.Line()} {
		if l != "" {
			out = append(out, EndLine{Text: l})
		}
	}
	if n := len(f.Parts); n > 1 {
		out = append(out, EndLine{Text: fmt.Sprintf("parts: %d, read one after another: %s … %s", n, f.Parts[0], f.Parts[n-1])})
	}
	return out
}
