package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
)

// offloaded is what a group of Extended Client pointers holds: the bucket,
// and what --fetch-payloads read of the objects.
type offloaded struct {
	bucket  string
	status  map[envelope.FetchStatus]int
	inside  groupFields // the payloads read, against the baseline's profile
	notJSON int         // read, but not a JSON object
}

// profile adds what one message says beyond its key: the value its
// validation error rejects, its payload's field profile, or for a pointer
// what S3 holds.
func (c *Classifier) profile(g *acc, value, source string) {
	if source != "logs" {
		g.rejected.add(value)
	}
	env := &c.env
	if env.Pointer != nil {
		if g.off != nil {
			c.fetch(g, *env.Pointer)
		}
		return
	}
	if c.prof != nil && c.sh.kind == "object" {
		c.prof.add(&g.fields2, env.Payload)
	}
}

// fetch reads a pointer's object through Options.Fetch and profiles it.
func (c *Classifier) fetch(g *acc, p envelope.Pointer) {
	if c.opts.Fetch == nil {
		return
	}
	f := c.opts.Fetch(p)
	g.off.status[f.Status]++
	if f.Status != envelope.FetchRead {
		return
	}
	body := bytes.Trim(f.Body, jsonSpace)
	if len(body) == 0 || body[0] != '{' || !json.Valid(body) {
		g.off.notJSON++
		return
	}
	if c.inProf != nil {
		c.inProf.add(&g.off.inside, body)
	}
}

// compareOffloaded compares pointers with the baseline's pointers, and
// what was read from S3 with the baseline's payloads.
func (c *Classifier) compareOffloaded(g *acc, b *Baseline, f *contentFinding) {
	o := g.off
	switch {
	case b.Pointers > 0:
		line := fmt.Sprintf("all %d are offloaded payload pointers (bucket %s), as are %d of the baseline's %d messages: pointer compared with pointer, no drift",
			g.n, o.bucket, b.Pointers, b.Messages)
		if b.PointerBuckets[o.bucket] == 0 {
			line += fmt.Sprintf("; but no baseline pointer names bucket %s (%s)", o.bucket, valueList("bucket", b.PointerBuckets))
		}
		f.evidence = append(f.evidence, line)
	case b.Objects > 0:
		f.poisoned(0.75, "all %d are offloaded payload pointers (bucket %s); none of the baseline's %d messages is: the producer now offloads to S3, which a consumer without the Extended Client Library cannot read",
			g.n, o.bucket, b.Messages)
	}
	c.compareInside(g, b, f)
}

// compareInside weighs the payloads --fetch-payloads read.
func (c *Classifier) compareInside(g *acc, b *Baseline, f *contentFinding) {
	o := g.off
	if c.opts.Fetch == nil {
		f.evidence = append(f.evidence, "the payloads themselves are in S3: classify again with --fetch-payloads N to compare what is inside with the baseline")
		return
	}
	read := o.status[envelope.FetchRead]
	var parts []string
	for _, s := range []envelope.FetchStatus{envelope.FetchMissing, envelope.FetchTooLarge, envelope.FetchDenied, envelope.FetchFailed, envelope.FetchSkipped} {
		if n := o.status[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	line := fmt.Sprintf("read %d of %d offloaded payloads from S3 (--fetch-payloads)", read, g.n)
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	f.evidence = append(f.evidence, line)
	if n := o.status[envelope.FetchMissing]; n > 0 {
		f.evidence = append(f.evidence, fmt.Sprintf("%d pointers name objects no longer in S3: those messages cannot be processed again as they are", n))
	}
	if read-o.notJSON == 0 {
		return
	}
	if c.inProf == nil {
		f.evidence = append(f.evidence, "the baseline holds pointers only: what was read from S3 has no baseline payload to be compared with")
		return
	}
	drifts := c.inProf.drifts(&o.inside, true)
	c.weighDrifts(g, drifts, f)
	if len(drifts) == 0 {
		f.verified = true
		f.evidence = append(f.evidence, fmt.Sprintf("the %d payloads read from S3 match the baseline's field profile (%d messages)", read-o.notJSON, b.profile.messages))
	}
}

// weighDrifts turns drifts into the finding: a contract drift is poison,
// a partial one evidence.
func (c *Classifier) weighDrifts(g *acc, drifts []Drift, f *contentFinding) {
	conf := map[string]float64{DriftType: 0.9, DriftValue: 0.85, DriftMissing: 0.8, DriftPattern: 0.85}
	for _, d := range drifts {
		d, _ = newBusinessValue(d, g.meaning())
		f.drifts = append(f.drifts, d)
		if d.Contract {
			f.poisoned(conf[d.Kind], "%s", d.Text)
			continue
		}
		f.evidence = append(f.evidence, d.Text)
	}
}

// isErrorRecord tells a group whose bodies hold nothing but a Step
// Functions error ({"Error", "Cause"}): what a Catch with the default
// ResultPath "$" sends on.
func isErrorRecord(g *acc) bool {
	if g.kind != "object" || len(g.keys) == 0 || g.fromBody == 0 {
		return false
	}
	for _, k := range g.keys {
		if k != "Error" && k != "Cause" {
			return false
		}
	}
	return true
}
