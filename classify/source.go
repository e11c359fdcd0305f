package classify

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// keyFor is the group's key as classification.json stores it: with its
// source when the classification groups by source. The "other" group
// mixes sources and keys: its key never names one.
func (g *acc) keyFor(bySource bool) Key {
	k := g.key
	if bySource && k.Fingerprint != OtherGroupID {
		k.Source = cmp.Or(g.source, NoSource)
	}
	return k
}

// sourceOf is the group's source ARN and queue name, both "" when its
// messages carry none or came from several.
func (g *acc) sourceOf() (arn, name string, mixed bool) {
	if g.mixedSource || g.source == "" {
		return "", "", g.mixedSource
	}
	name, _ = sqsjson.QueueNameOfARN(g.source)
	return g.source, name, false
}

// SourceName is how a group's source is written for people: the queue's
// name, its ARN when that is not an SQS ARN, NoSourceName without one.
func (g *Group) SourceName() string {
	switch {
	case g.Source != "":
		return g.Source
	case g.SourceARN != "":
		return g.SourceARN
	case g.SourceMixed:
		return "(several)"
	}
	return NoSourceName
}

// NoSourceName names the source of messages without DeadLetterQueueSourceArn:
// sent to the DLQ directly, or moved by an SQS older than the attribute.
// No redrive can return them to a source; they need --to.
const NoSourceName = "(none)"

// sourceEvidence is the DLQ-wide line that counts the messages of each
// source queue, most first, and those without one, when the classification
// groups by source: "" when it does not.
func sourceEvidence(c *Classification) string {
	if !c.BySource || len(c.Groups) == 0 {
		return ""
	}
	counts := map[string]int{}
	none := 0
	for i := range c.Groups {
		g := &c.Groups[i]
		if g.SourceARN == "" && !g.SourceMixed {
			none += g.Count
			continue
		}
		counts[g.SourceName()] += g.Count
	}
	names := mostCommon(counts)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, counts[n]))
	}
	line := fmt.Sprintf("%s from %s (DeadLetterQueueSourceArn): %s", plural.Of(c.Messages-none, "message"),
		plural.Of(len(names), "source queue"), strings.Join(parts, ", "))
	if len(names) == 0 {
		line = "no message names its source queue (DeadLetterQueueSourceArn)"
	}
	if none > 0 {
		line += fmt.Sprintf("; %d without one (sent to the DLQ directly)", none)
	}
	return line + "; a group holds one source's messages"
}

// noSourceEvidence is the line of a group whose messages carry no
// DeadLetterQueueSourceArn on a DLQ with several sources.
const noSourceEvidence = "no DeadLetterQueueSourceArn: sent to the DLQ directly (or moved by an SQS older than the attribute), so there is no source queue to return them to; a redrive needs --to QUEUE"
