package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/sqsjson"
)

const (
	ordersARN   = "arn:aws:sqs:eu-west-1:123456789012:orders"
	paymentsARN = "arn:aws:sqs:eu-west-1:123456789012:payments"
)

// fixtureFrom reads a fixture's messages, each given DeadLetterQueueSourceArn
// src ("" leaves them without).
func fixtureFrom(t *testing.T, name, src string) []sqsjson.Message {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	msgs, err := sqsjson.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if src != "" {
		for i := range msgs {
			msgs[i].Attributes[sqsjson.AttrDeadLetterQueueSourceArn] = src
		}
	}
	return msgs
}

func classifyAll(t *testing.T, opts Options, sets ...[]sqsjson.Message) *Classification {
	t.Helper()
	c := New(opts)
	for _, msgs := range sets {
		for i := range msgs {
			if err := c.Add(&msgs[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c.Result()
}

// sourceView is what the source tests check of a group.
type sourceView struct {
	ID, Source, SourceARN string
	Verdict               Verdict
	Count                 int
}

func sourceViews(c *Classification) []sourceView {
	var out []sourceView
	for _, g := range c.Groups {
		out = append(out, sourceView{g.ID, g.Source, g.SourceARN, g.Verdict, g.Count})
	}
	return out
}

// The same poison from two source queues is two groups: each goes back (or
// not) to its own source, and a fix to one consumer is not a fix to the
// other.
func TestSourceIsPartOfTheGroup(t *testing.T) {
	base := loadBaseline(t)
	orders := fixtureFrom(t, "deploy.jsonl", ordersARN)
	payments := fixtureFrom(t, "deploy.jsonl", paymentsARN)[:100]
	c := classifyAll(t, Options{Baseline: base}, orders, payments)
	if !c.BySource {
		t.Fatal("two sources, and the classification does not group by source")
	}
	want := []sourceView{
		{"g1", "orders", ordersARN, VerdictPoison, 340},
		{"g2", "payments", paymentsARN, VerdictPoison, 100},
	}
	if diff := cmp.Diff(want, sourceViews(c)); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if c.Groups[0].Key != c.Groups[0].Fingerprint+" | "+c.Groups[0].Signature+" | "+ordersARN {
		t.Errorf("key %q does not end with the source", c.Groups[0].Key)
	}
	if !hasLine(c.Evidence, "440 messages from 2 source queues (DeadLetterQueueSourceArn): orders 340, payments 100; a group") {
		t.Errorf("no line counting the sources: %q", c.Evidence)
	}
	// GroupOf decides by the source too: a payments message is g2's.
	m := fixtureFrom(t, "deploy.jsonl", paymentsARN)[200]
	if g, ok := c.GroupOf(&m, nil); !ok || g.ID != "g2" {
		t.Errorf("a payments message falls in %v %v, want g2", g, ok)
	}
}

// A poison group from orders and a transient one from payments: two
// groups, each with its verdict and source, the DLQ mixed.
func TestSourcesWithTheirOwnVerdicts(t *testing.T) {
	base := loadBaseline(t)
	c := classifyAll(t, Options{Baseline: base}, fixtureFrom(t, "deploy.jsonl", ordersARN), fixtureFrom(t, "outage.jsonl", paymentsARN))
	want := []sourceView{
		{"g1", "orders", ordersARN, VerdictPoison, 340},
		{"g2", "payments", paymentsARN, VerdictTransient, 180},
	}
	if diff := cmp.Diff(want, sourceViews(c)); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if c.Verdict != VerdictMixed {
		t.Errorf("verdict %s, want mixed", c.Verdict)
	}
}

// One source, with or without the attribute: the keys, ids and verdicts of
// today, so existing classifications and redrive --group keep working.
func TestOneSourceKeepsItsKeys(t *testing.T) {
	base := loadBaseline(t)
	plain := classifyAll(t, Options{Baseline: base}, fixtureFrom(t, "mixed.jsonl", ""))
	sourced := classifyAll(t, Options{Baseline: base}, fixtureFrom(t, "mixed.jsonl", ordersARN))
	if sourced.BySource || plain.BySource {
		t.Fatal("one source, and the classification groups by source")
	}
	if len(plain.Groups) != len(sourced.Groups) || len(plain.Groups) < 2 {
		t.Fatalf("%d groups with the attribute, %d without", len(sourced.Groups), len(plain.Groups))
	}
	for i := range plain.Groups {
		p, s := plain.Groups[i], sourced.Groups[i]
		if p.ID != s.ID || p.Key != s.Key || p.Verdict != s.Verdict || p.Count != s.Count {
			t.Errorf("group %d: %s %q %s %d without the attribute, %s %q %s %d with", i, p.ID, p.Key, p.Verdict, p.Count, s.ID, s.Key, s.Verdict, s.Count)
		}
		if p.Source != "" || s.Source != "orders" || s.SourceARN != ordersARN {
			t.Errorf("group %d: source %q without the attribute, %q (%q) with", i, p.Source, s.Source, s.SourceARN)
		}
	}
	if hasLine(sourced.Evidence, "sources (DeadLetterQueueSourceArn)") {
		t.Errorf("one source, and a line counting sources: %q", sourced.Evidence)
	}
}

// Several source queues by redrive policy (BySource) group by source even
// when the sample shows one: a later message from another source must not
// fall in this source's group.
func TestBySourceOption(t *testing.T) {
	c := classifyAll(t, Options{BySource: true}, fixtureFrom(t, "outage.jsonl", paymentsARN))
	if !c.BySource || len(c.Groups) != 1 || c.Groups[0].Source != "payments" {
		t.Fatalf("by source %v, groups %+v", c.BySource, sourceViews(c))
	}
	other := fixtureFrom(t, "outage.jsonl", ordersARN)[0]
	if g, ok := c.GroupOf(&other, nil); ok {
		t.Errorf("an orders message falls in %s, the payments group", g.ID)
	}
	same := fixtureFrom(t, "outage.jsonl", paymentsARN)[0]
	if g, ok := c.GroupOf(&same, nil); !ok || g.ID != "g1" {
		t.Errorf("a payments message falls in %v %v, want g1", g, ok)
	}
}

// Messages without the attribute (sent to the DLQ directly) are a source
// of their own: "(none)", keyed "-".
func TestMessagesWithoutSource(t *testing.T) {
	direct := fixtureFrom(t, "outage.jsonl", "")[:5]
	c := classifyAll(t, Options{}, fixtureFrom(t, "outage.jsonl", ordersARN)[5:], direct)
	if !c.BySource || len(c.Groups) != 2 {
		t.Fatalf("by source %v, groups %+v", c.BySource, sourceViews(c))
	}
	g := c.Groups[1]
	if g.Count != 5 || g.Source != "" || g.SourceARN != "" || g.SourceName() != NoSourceName || g.Key != g.Fingerprint+" | "+g.Signature+" | "+NoSource {
		t.Errorf("the direct group: %+v, key %q, name %q", sourceViews(c)[1], g.Key, g.SourceName())
	}
	if !hasLine(g.Evidence, "no source queue to return them to") {
		t.Errorf("the direct group's evidence %q does not say it has no source", g.Evidence)
	}
	if !strings.Contains(g.Action, "--group g2 --to QUEUE") || strings.Contains(c.Groups[0].Action, "--to") {
		t.Errorf("actions %q and %q: only the group without a source needs --to", c.Groups[0].Action, g.Action)
	}
	if got, ok := c.GroupOf(&direct[0], nil); !ok || got.ID != g.ID {
		t.Errorf("a direct message falls in %v %v, want %s", got, ok, g.ID)
	}
	if !hasLine(c.Evidence, "175 messages from 1 source queue (DeadLetterQueueSourceArn): orders 175; 5 without one (sent to the DLQ directly); a group") {
		t.Errorf("evidence %q", c.Evidence)
	}
}

// Past MaxGroups, "other" gathers every source: it names none.
func TestOtherGroupMixesSources(t *testing.T) {
	c := classifyAll(t, Options{MaxGroups: 1}, fixtureFrom(t, "deploy.jsonl", ordersARN)[:3], fixtureFrom(t, "outage.jsonl", paymentsARN)[:2], fixtureFrom(t, "sku.json", ordersARN)[:2])
	o, ok := c.Group(OtherGroupID)
	if !ok {
		t.Fatalf("no other group: %+v", sourceViews(c))
	}
	if o.Source != "" || !o.SourceMixed || o.SourceName() != "(several)" || o.Key != OtherGroupID+" | " {
		t.Errorf("other: %+v key %q", o, o.Key)
	}
}

func hasLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}
