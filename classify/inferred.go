package classify

import "fmt"

// inferFromLogs applies what the consumer's logs proved for some messages
// to every message of their kind: a group with no error of its own is
// merged into the one group of the same fingerprint (and source) whose
// signature mfdlq logs found for its MessageIds. logs looks up a sample of
// MessageIds, and the rest of a shape failed the same way; when two logs
// signatures share the fingerprint, which one applies is not known, and
// nothing is inferred. It runs once, from Result.
func (c *Classifier) inferFromLogs() {
	if c.inferred || c.shapesOnly || len(c.opts.Signatures) == 0 {
		return
	}
	c.inferred = true
	type kind struct{ fp, src string }
	found := map[kind]*acc{}
	for _, g := range c.order {
		if g.fromLogs == 0 {
			continue
		}
		k := kind{g.key.Fingerprint, g.source}
		if prev, ok := found[k]; ok && prev != g {
			found[k] = nil // two signatures: ambiguous
			continue
		}
		found[k] = g
	}
	kept := c.order[:0]
	for _, g := range c.order {
		into := found[kind{g.key.Fingerprint, g.source}]
		if into == nil || g == into || g.key.Signature != "" || g.fromAttrs > 0 || g.key.Fingerprint == OtherGroupID {
			kept = append(kept, g)
			continue
		}
		into.absorb(g)
	}
	c.order = kept
}

// absorb adds g's messages to a: their count, arrivals, receive counts,
// example ids and --expect findings, counted as inferred.
func (a *acc) absorb(g *acc) {
	a.n += g.n
	a.inferred += g.n
	a.arr.merge(&g.arr)
	a.sizes.addAll(&g.sizes)
	a.declared.addAll(&g.declared)
	for n, k := range g.receives {
		a.receives[n] += k
	}
	for _, id := range g.ids {
		if len(a.ids) < maxExampleIDs {
			a.ids = append(a.ids, id)
		}
	}
	for f, n := range g.contrary {
		a.contrary[f] += n
		if _, ok := a.seenValue[f]; !ok {
			a.seenValue[f] = g.seenValue[f]
		}
	}
	a.mixedSource = a.mixedSource || g.mixedSource
}

// inferredEvidence says which messages got the logs' error by their kind.
func inferredEvidence(g *acc) string {
	return fmt.Sprintf("%d of %d carry no error of their own and share the fingerprint of the %d the consumer's logs were looked up for: the same error, inferred from %d looked up",
		g.inferred, g.n, g.fromLogs, g.fromLogs)
}
