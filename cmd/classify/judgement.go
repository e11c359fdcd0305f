package classify

import (
	"fmt"
	"strings"

	classifystep "github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/untrusted"
)

// What classify says of the incident's verdict: classify.Judge decides
// whether a look replaces classification.json (record, in classify.go);
// these describe the look and say what it did.

// look describes how this classify looked, for its judgement and for the
// estimates: the DLQ's size is what it held when classify resolved it,
// before its own peek hid anything (visible, in flight and delayed).
func (o *ClassifyOptions) look(q *sqsapi.Queue, source string, res *classifystep.Classification, sigs int) *classifystep.Look {
	l := &classifystep.Look{Sampled: res.Messages, Source: source, LogSignatures: sigs}
	if q != nil {
		l.InDLQ = int(q.Depth.Total())
	}
	return l
}

// sayJudgement says on stderr what this look did to the incident's
// verdict: kept beside it (with the look's own verdicts), or replaced.
func (o *ClassifyOptions) sayJudgement(j classifystep.Judgement, look, saved *classifystep.Classification) {
	d := o.deps
	switch {
	case j.Kept:
		var groups []string
		for _, g := range look.Groups {
			groups = append(groups, fmt.Sprintf("%s %s %d", g.ID, g.Verdict, g.Count))
		}
		again := "at least the verdict's evidence"
		var flags []string
		for _, e := range saved.Expect {
			flags = append(flags, "--expect "+e)
		}
		if saved.Baseline != nil {
			flags = append(flags, "--baseline FILE")
		}
		if len(flags) > 0 {
			again = strings.Join(flags, " ")
		}
		d.Warnf("the incident's verdict stays %s: %s", j.Verdict, untrusted.Terminal(j.Why))
		d.Warnf("this look, not saved: %s (%s) — %s; classify again with %s to replace it",
			look.Verdict, j.LookSample, untrusted.Terminal(strings.Join(groups, ", ")), untrusted.Terminal(again))
	case j.Saved != "" && len(j.Changed) > 0:
		d.Infof("the incident's verdict: %s → %s (%s), this look replaces the last: %s", j.Saved, j.Verdict, untrusted.Terminal(strings.Join(j.Changed, ", ")), untrusted.Terminal(j.Why))
	case j.Saved != "":
		d.Infof("the incident's verdict: %s, unchanged; this look replaces the last: %s", j.Verdict, untrusted.Terminal(j.Why))
	}
}
