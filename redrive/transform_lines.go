package redrive

import (
	"context"
	"strings"

	"github.com/mfdlq/mfdlq/incident"
)

// TransformPlanLines are what --transform will do, before anything moves
// (none without one): the plan's lines (TransformLines, each "plan: …")
// and a redacted before/after of the first messages the selection picks
// (PreviewTransform, read without hiding them; each "preview:…").
func TransformPlanLines(ctx context.Context, env *Env, p *Plan, ws *incident.Workspace) ([]string, error) {
	if p.Transform == nil {
		return nil, nil
	}
	f, sns, err := PreviewTransform(ctx, env, p)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range p.TransformLines(f, sns, ws) {
		lines = append(lines, "plan: "+l)
	}
	var b strings.Builder
	f.WriteExamples(&b)
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if l != "" {
			lines = append(lines, "preview:"+l)
		}
	}
	return lines, nil
}
