package classify

import (
	"fmt"

	"github.com/mfdlq/mfdlq/envelope"
)

// ceSchema is what a CloudEvent says of its data's schema.
type ceSchema struct{ eventType, dataSchema string }

// schemaFingerprint writes the schema the envelope names besides an event's
// source and detail-type: a CloudEvent's type and dataschema, an offloaded
// payload's bucket. A CloudEvent's source and id are left out: they name
// the instance, not the schema, and would split a group per message.
func schemaFingerprint(buf []byte, env *envelope.Envelope) []byte {
	if env.EventType != "" {
		buf = append(buf, "type="...)
		buf = append(buf, env.EventType...)
		buf = append(buf, ' ')
	}
	if env.DataSchema != "" {
		buf = append(buf, "dataschema="...)
		buf = append(buf, env.DataSchema...)
		buf = append(buf, ' ')
	}
	if env.Pointer != nil {
		buf = append(buf, "bucket="...)
		buf = append(buf, env.Pointer.Bucket...)
		buf = append(buf, ' ')
	}
	return buf
}

// compareSchema weighs a CloudEvent's dataschema and type against the
// baseline's CloudEvents: a dataschema none of them names is a new schema
// (poison); a type none of them has is worth saying, no more — the
// baseline may not hold every event type.
func compareSchema(g *acc, b *Baseline, f *contentFinding) {
	if g.schema.eventType == "" || b.CloudEvents == 0 {
		return
	}
	if ds := g.schema.dataSchema; ds != "" {
		vals := b.Schemas["dataschema"]
		switch {
		case len(vals) == 0:
			f.poisoned(0.8, "all %d name dataschema=%s; none of the baseline's %d CloudEvents names a dataschema", g.n, ds, b.CloudEvents)
		case vals[ds] == 0:
			f.poisoned(0.9, "all %d name dataschema=%s, absent from the baseline's %d CloudEvents (%s): the dataschema is the proof",
				g.n, ds, b.CloudEvents, valueList("dataschema", vals))
		}
	}
	if t := g.schema.eventType; b.Schemas["type"][t] == 0 {
		f.evidence = append(f.evidence, fmt.Sprintf("event type %s: none of the baseline's %d CloudEvents has it (%s)",
			t, b.CloudEvents, valueList("type", b.Schemas["type"])))
	}
}
