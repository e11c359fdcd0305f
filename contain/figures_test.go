package contain

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/lambdaapi"
)

// TestChangesReadsOldAndNewEvents reads the mapping changes of contain
// events as an old events.jsonl holds them (written as a map) and as
// SetFigures writes them, skipping the measuring events and other steps.
func TestChangesReadsOldAndNewEvents(t *testing.T) {
	lines := []string{
		`{"step":"contain","time":"2026-11-30T02:50:00Z","figures":{"visible":340,"in_flight":0,"trend":"stable","age_of_oldest_seconds":12}}`,
		`{"step":"contain","time":"2026-11-30T02:51:00Z","figures":{"mapping_change":{"action":"pause","uuid":"u1","function":"f","queue":"orders","before":{"enabled":true},"after":{"enabled":false},"dry_run":false}}}`,
		`{"step":"inspect","time":"2026-11-30T02:52:00Z","figures":{"mapping_change":{"action":"resume","uuid":"u1"}}}`,
	}
	var events []incident.Event
	for _, l := range lines {
		var ev incident.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
	capped := lambdaapi.MappingChange{Action: lambdaapi.ActionCap, UUID: "u1", Before: lambdaapi.MappingState{Enabled: false}}
	ev := incident.Event{Step: incident.StepContain}
	if err := ev.SetFigures(ChangeFigures{MappingChange: &capped}); err != nil {
		t.Fatal(err)
	}
	events = append(events, ev)
	got, err := Changes(events)
	if err != nil {
		t.Fatal(err)
	}
	want := []lambdaapi.MappingChange{
		{Action: lambdaapi.ActionPause, UUID: "u1", Function: "f", Queue: "orders", Before: lambdaapi.MappingState{Enabled: true}},
		capped,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Changes (-want +got):\n%s", diff)
	}
	st, err := lambdaapi.Recorded(got, "u1")
	if err != nil || st == nil || !st.Enabled {
		t.Fatalf("Recorded = %+v, %v; want the state before the pause (enabled)", st, err)
	}
}
