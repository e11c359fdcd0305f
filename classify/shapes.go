package classify

import (
	"cmp"
	"slices"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// Shape is one fingerprint among a set of messages and how its payloads
// drift from the baseline: what inspect's fingerprint summary shows.
type Shape struct {
	Fingerprint string
	Count       int
	Drift       []string // evidence lines, contract changes first; empty without a baseline
}

// Shapes counts msgs by fingerprint, most first, each with its drift from
// opts.Baseline (read through opts.Envelope; opts.Fetch reads offloaded
// payloads). Errors play no part: a shape is content only. A message
// without a SentTimestamp still counts.
func Shapes(msgs []sqsjson.Message, opts Options) []Shape {
	opts.Signatures = nil
	c := New(opts)
	c.shapesOnly = true
	for i := range msgs {
		m := msgs[i]
		if _, ok := m.Attributes[sqsjson.AttrSentTimestamp]; !ok {
			m.Attributes = map[string]string{sqsjson.AttrSentTimestamp: "0"}
		}
		_ = c.Add(&m) // cannot fail: the timestamp is there
	}
	out := make([]Shape, 0, len(c.order))
	for _, g := range c.order {
		s := Shape{Fingerprint: g.key.Fingerprint, Count: g.n, Drift: []string{}}
		if b := c.opts.Baseline; b != nil && b.Messages > 0 {
			f := c.content(g)
			for _, d := range f.drifts {
				s.Drift = append(s.Drift, d.Text)
			}
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Shape) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Fingerprint, b.Fingerprint))
	})
	return out
}
