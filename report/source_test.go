package report

import (
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
)

// The report names each group's source queue on a shared DLQ, and says of
// a group without one that it needs --to; a single-source classification
// without the attribute (every older one) has no such line.
func TestClassifySectionNamesEachSource(t *testing.T) {
	t.Parallel()
	c := &classify.Classification{Verdict: classify.VerdictMixed, Messages: 9, BySource: true, Groups: []classify.Group{
		{ID: "g1", Verdict: classify.VerdictPoison, Count: 5, Source: "orders", SourceARN: "arn:aws:sqs:eu-west-1:123456789012:orders"},
		{ID: "g2", Verdict: classify.VerdictTransient, Count: 3, Source: "payments", SourceARN: "arn:aws:sqs:eu-west-1:123456789012:payments"},
		{ID: "g3", Verdict: classify.VerdictTransient, Count: 1},
	}}
	inc := &Incident{Classification: c}
	var b strings.Builder
	inc.writeClassify(&b, incident.Event{})
	got := b.String()
	for _, want := range []string{
		"### Group g1: poison — 5 messages\n\n- source queue: `orders` (`arn:aws:sqs:eu-west-1:123456789012:orders`)\n",
		"### Group g2: transient — 3 messages\n\n- source queue: `payments` (",
		"### Group g3: transient — 1 message\n\n- source queue: none — the messages carry no DeadLetterQueueSourceArn (sent to the DLQ directly): a redrive needs --to\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("classify section lacks %q:\n%s", want, got)
		}
	}
	c.BySource, c.Groups = false, c.Groups[2:]
	b.Reset()
	inc.writeClassify(&b, incident.Event{})
	if strings.Contains(b.String(), "source queue") {
		t.Errorf("a single-source classification names a source:\n%s", b.String())
	}
}
