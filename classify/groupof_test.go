package classify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// TestLogSignatures: logs.json's signatures by MessageId, a message
// without one of its own signed from its exception, one not found left
// out; no logs.json is an error.
func TestLogSignatures(t *testing.T) {
	dir := t.TempDir()
	ws, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LogSignatures(ws); err == nil {
		t.Fatal("no logs.json: no error")
	}
	logs := `{"messages": [
	 {"message_id": "m0", "found": true, "log_group": "/aws/lambda/orders", "log_stream": "s", "timestamp": "2024-03-10T22:04:03Z",
	  "lines": ["ERROR UnsupportedVersionError: version 2"], "exception": "UnsupportedVersionError: version 2", "signature": "UnsupportedVersionError: version <n>"},
	 {"message_id": "m1", "found": true, "exception": "UnsupportedVersionError: version 3"},
	 {"message_id": "m2", "found": false, "exception": "", "signature": ""}]}`
	if err := os.WriteFile(filepath.Join(dir, incident.LogsFile), []byte(logs), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := LogSignatures(ws)
	if err != nil {
		t.Fatal(err)
	}
	want := Signatures{"m0": "UnsupportedVersionError: version <n>", "m1": "UnsupportedVersionError: version <n>"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("signatures (-want +got):\n%s", diff)
	}
}
