package classify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/incident"
)

// TestGroupOfReadsTheIncident: redrive --group decides a live message's
// group from the incident's classification.json exactly as classify
// counted it, and an incident without one, or a group it does not hold,
// is an error naming the fix.
func TestGroupOfReadsTheIncident(t *testing.T) {
	dir := t.TempDir()
	ws, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GroupOf(ws, "g2"); err == nil || !strings.Contains(err.Error(), "run mfdlq classify first") {
		t.Fatalf("no classification: %v", err)
	}
	c := runFixture(t, "mixed.jsonl", Options{Queue: "orders-dlq"})
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, incident.ClassificationFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := GroupOf(ws, "g9"); err == nil || !strings.Contains(err.Error(), "--group g9: no such group in classification.json; groups: g1, g2") {
		t.Fatalf("unknown group: %v", err)
	}
	of, err := GroupOf(ws, "g2")
	if err != nil {
		t.Fatal(err)
	}
	msgs := readAll(t, "mixed.jsonl")
	n := 0
	for i := range msgs {
		if of(&msgs[i]) == "g2" {
			n++
		}
	}
	if n != 40 {
		t.Fatalf("%d messages in g2, want the 40 classify counted", n)
	}
}
