package classify

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mfdlq/mfdlq/plural"
)

// contractShare is "(nearly) all": a drift this share of a group shares is
// a contract change — poison whatever the timing or the error.
const contractShare = 0.9

// maxPartialDrifts bounds the drifts shown that only part of a group has.
const maxPartialDrifts = 3

// Drift kinds.
const (
	DriftType    = "type"    // a JSON type no baseline message has at that field
	DriftValue   = "value"   // an enum-like field's value no baseline message has
	DriftMissing = "missing" // a nested field every baseline message has
	DriftPattern = "pattern" // a value pattern (URL-encoded, UUID-like, case …) the baseline never has, or always has
)

// Drift is one way a group's payloads differ from the baseline's, with the
// counts that prove it. Text is the evidence line.
type Drift struct {
	Field    string `json:"field"` // path: amount, customer.email, items[].sku
	Kind     string `json:"kind"`  // type, value, missing, pattern
	Value    string `json:"value"` // the type or value here ("" for missing)
	Count    int    `json:"count"` // messages here that have it (lack it, for missing)
	Of       int    `json:"of"`    // messages here compared
	Baseline string `json:"baseline"`
	Contract bool   `json:"contract"`         // shared by (nearly) all: a contract change
	Fetched  bool   `json:"fetched,omitzero"` // found in payloads read from S3 (--fetch-payloads)
	// Reference: a value drift shared by the group that is a new business
	// value (a tenant, a warehouse), not a contract change.
	Reference bool   `json:"reference,omitzero"`
	Text      string `json:"text"`
}

// drifts compares a group's profile with the baseline's: contract drifts
// first, then up to maxPartialDrifts that only part of the group has.
func (pr *profiler) drifts(g *groupFields, fetched bool) []Drift {
	if g == nil || g.messages == 0 || pr.base.messages == 0 {
		return nil
	}
	here := "here"
	if fetched {
		here = "fetched from S3"
	}
	var out []Drift
	var broken []string // paths whose type drifted or that are missing: their children follow
	for id := range pr.base.fields {
		path := pr.base.fields[id].path
		if under(path, broken) {
			continue
		}
		d, ok, breaks := pr.fieldDrift(id, g, here)
		if ok {
			d.Fetched = fetched
			out = append(out, d)
		}
		if breaks {
			broken = append(broken, path)
		}
	}
	slices.SortStableFunc(out, func(a, b Drift) int {
		return cmp.Or(boolOrder(b.Contract, a.Contract), cmp.Compare(b.Count*a.Of, a.Count*b.Of), cmp.Compare(a.Field, b.Field))
	})
	n := 0
	for n < len(out) && out[n].Contract {
		n++
	}
	return out[:min(len(out), n+maxPartialDrifts)]
}

// fieldDrift is the drift of the baseline's field id in g, the first
// that applies: its type, its absence, a new enum value, a value pattern.
// breaks: the field's type drifted or it is missing, so its children's
// drifts follow from it and are not told.
func (pr *profiler) fieldDrift(id int, g *groupFields, here string) (d Drift, ok, breaks bool) {
	b, s := &pr.base.fields[id], &g.stats[id]
	if d, ok := typeDrift(b, s, g.messages, pr.base.messages, here); ok {
		return d, true, true
	}
	if d, ok := missingDrift(b, s, g.messages, pr.base.messages, here); ok {
		return d, true, true
	}
	if pr.enum[id] && s.newMsgs > 0 {
		return valueDrift(b, s, g.messages, pr.base.messages, here), true, false
	}
	if !b.enumLike() && !pr.topKey(id) {
		d, ok := patternDrift(b.path, &b.pc, &s.pc, g.messages, pr.base.messages, here)
		return d, ok, false
	}
	return Drift{}, false, false
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// under tells whether path lies inside one of the paths in roots.
func under(path string, roots []string) bool {
	return slices.ContainsFunc(roots, func(r string) bool {
		return strings.HasPrefix(path, r) && len(path) > len(r) && (path[len(r)] == '.' || path[len(r)] == '[')
	})
}

// typeDrift: a type the group has at the path in most of its messages and
// no baseline message has there.
func typeDrift(b *fieldStat, s *groupStat, n, baseN int, here string) (Drift, bool) {
	if b.present < minTypeSupport {
		return Drift{}, false
	}
	best, count := -1, 0
	for t := range nTypes {
		if s.types[t] > 0 && b.types[t] == 0 && int(s.types[t]) > count {
			best, count = t, int(s.types[t])
		}
	}
	if best < 0 {
		return Drift{}, false
	}
	base := typeList(b.types, baseN)
	d := Drift{Field: b.path, Kind: DriftType, Value: typeNames[best], Count: count, Of: n, Baseline: base,
		Contract: float64(count) >= contractShare*float64(n)}
	d.Text = fmt.Sprintf("%s: %s, %s in %d of %d %s", b.path, base, typeNames[best], count, n, here)
	d.Text += driftTail(d.Contract)
	return d, true
}

// typeList writes a baseline field's types: "number in 100 of 100 baseline
// messages", most common first.
func typeList(types [nTypes]int, of int) string {
	var parts []string
	order := []int{tObject, tArray, tString, tNumber, tBool, tNull}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(types[b], types[a]) })
	for _, t := range order {
		if types[t] > 0 {
			parts = append(parts, fmt.Sprintf("%s in %d", typeNames[t], types[t]))
		}
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" of %d baseline messages", of)
}

// missingDrift: a nested field (nearly) every baseline message has that
// (nearly) no message of the group has. Top-level keys are the
// fingerprint's business ("they lack …").
func missingDrift(b *fieldStat, s *groupStat, n, baseN int, here string) (Drift, bool) {
	if b.depth < 2 || b.present*100 < baseN*99 || baseN < minTypeSupport {
		return Drift{}, false
	}
	lack := n - int(s.present)
	if float64(lack) < contractShare*float64(n) {
		return Drift{}, false
	}
	d := Drift{Field: b.path, Kind: DriftMissing, Count: lack, Of: n, Contract: true,
		Baseline: fmt.Sprintf("in %d of %d baseline messages", b.present, baseN)}
	d.Text = fmt.Sprintf("%s: %s, missing in %d of %d %s", b.path, d.Baseline, lack, n, here) + driftTail(true)
	return d, true
}

// valueDrift: values of an enum-like field that no baseline message has.
// A contract change when (nearly) all of the group share one such value;
// values that differ from message to message are data.
func valueDrift(b *fieldStat, s *groupStat, n, baseN int, here string) Drift {
	top, topN := "", int32(0)
	for v, c := range s.newVals {
		if c > topN || c == topN && v < top {
			top, topN = v, c
		}
	}
	count := min(int(topN), int(s.newMsgs))
	d := Drift{Field: b.path, Kind: DriftValue, Value: top, Count: count, Of: n,
		Baseline: fmt.Sprintf("in 0 of %d baseline messages, which hold %s (%s)", baseN, plural.Of(len(b.values), "value"), valueNames(b.values)),
		Contract: float64(count) >= contractShare*float64(n)}
	d.Text = fmt.Sprintf("%s=%s in %d of %d %s, %s", b.path, top, count, n, here, d.Baseline)
	if others := len(s.newVals) - 1; others > 0 {
		d.Text += fmt.Sprintf("; %d messages carry %d other values the baseline lacks", int(s.newMsgs)-count, others)
	}
	d.Text += driftTail(d.Contract)
	return d
}

func driftTail(contract bool) string {
	if contract {
		return ": a contract change"
	}
	return " — only part of the group"
}

// mostCommon is the keys of counts (a baseline field's values, the source
// queues' names), most common first, ties in the keys' order.
func mostCommon(vals map[string]int) []string {
	return slices.SortedFunc(maps.Keys(vals), func(a, b string) int { return cmp.Or(cmp.Compare(vals[b], vals[a]), cmp.Compare(a, b)) })
}

// valueNames lists up to four of a baseline field's values, most common first.
func valueNames(vals map[string]int) string {
	vs := mostCommon(vals)
	if len(vs) > 4 {
		vs = append(vs[:4], "…")
	}
	return strings.Join(vs, ", ")
}
