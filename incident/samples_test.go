package incident

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// TestKeptSample: the incident's larger sample stands against a smaller
// peek until a step after the one that took it moved or deleted messages;
// a classify that peeked took a sample as an inspect does.
func TestKeptSample(t *testing.T) {
	took := func(step, artifact, source string) Event {
		ev := Event{Step: step, Artifact: artifact}
		if source != "" {
			if err := ev.SetInputs(struct {
				Source string `json:"source"`
			}{source}); err != nil {
				t.Fatal(err)
			}
		}
		return ev
	}
	for _, c := range []struct {
		name   string
		sample int // messages in samples.jsonl; 0: none
		events []Event
		peeked int
		kept   int
	}{
		{"no sample", 0, nil, 3, 0},
		{"larger sample kept", 10, []Event{took(StepInspect, SamplesFile, "")}, 3, 10},
		{"a peek as large replaces it", 10, []Event{took(StepInspect, SamplesFile, "")}, 10, 0},
		{"stale after a redrive", 10, []Event{took(StepInspect, SamplesFile, ""), took(StepRedrive, "", "")}, 3, 0},
		{"stale after an export", 10, []Event{took(StepInspect, SamplesFile, ""), took(StepExport, "", "")}, 3, 0},
		{"retaken after the redrive", 10, []Event{took(StepRedrive, "", ""), took(StepClassify, "", LiveSample)}, 3, 10},
		{"a classify of a file took none", 10, []Event{took(StepRedrive, "", ""), took(StepClassify, "", SamplesFile)}, 3, 0},
	} {
		ws, err := Open(filepath.Join(t.TempDir(), "inc"))
		if err != nil {
			t.Fatal(err)
		}
		if c.sample > 0 {
			msgs := make([]sqsjson.Message, c.sample)
			for i := range msgs {
				msgs[i] = sqsjson.Message{MessageId: fmt.Sprint("m", i), Body: "{}"}
			}
			if err := ws.WriteWith(SamplesFile, sqsjson.WriteLines(msgs)); err != nil {
				t.Fatal(err)
			}
		}
		for _, ev := range c.events {
			if err := ws.Append(ev); err != nil {
				t.Fatal(err)
			}
		}
		if got := ws.KeptSample(c.peeked); got != c.kept {
			t.Errorf("%s: KeptSample(%d) = %d, want %d", c.name, c.peeked, got, c.kept)
		}
	}
}
