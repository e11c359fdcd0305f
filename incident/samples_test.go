package incident

import (
	"path/filepath"
	"testing"
)

// TestSampleRecent: the incident's sample stands until a step after the
// one that took it moved or deleted messages; a classify that peeked took
// a sample as an inspect does, one that read a file did not.
func TestSampleRecent(t *testing.T) {
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
		sample bool // samples.jsonl is there
		events []Event
		recent bool
	}{
		{"no sample", false, []Event{took(StepInspect, SamplesFile, "")}, false},
		{"taken, nothing since", true, []Event{took(StepInspect, SamplesFile, "")}, true},
		{"stale after a redrive", true, []Event{took(StepInspect, SamplesFile, ""), took(StepRedrive, "", "")}, false},
		{"stale after an export", true, []Event{took(StepInspect, SamplesFile, ""), took(StepExport, "", "")}, false},
		{"a classify after it changes nothing", true, []Event{took(StepInspect, SamplesFile, ""), took(StepClassify, "", SamplesFile)}, true},
		{"retaken by a classify's peek after the redrive", true, []Event{took(StepRedrive, "", ""), took(StepClassify, "", LiveSample)}, true},
		{"a classify of a file after the redrive took none", true, []Event{took(StepRedrive, "", ""), took(StepClassify, "", SamplesFile)}, false},
	} {
		ws, err := Open(filepath.Join(t.TempDir(), "inc"))
		if err != nil {
			t.Fatal(err)
		}
		if c.sample {
			if err := ws.WriteJSON(SamplesFile, map[string]string{}); err != nil {
				t.Fatal(err)
			}
		}
		for _, ev := range c.events {
			if err := ws.Append(ev); err != nil {
				t.Fatal(err)
			}
		}
		if got := ws.SampleRecent(); got != c.recent {
			t.Errorf("%s: SampleRecent() = %v, want %v", c.name, got, c.recent)
		}
	}
}
