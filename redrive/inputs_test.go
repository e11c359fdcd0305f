package redrive

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/selection"
)

// An incident written before the selection was one value reads the same:
// Inputs embeds it under the keys every redrive event has had, and writes
// them back byte for byte.
func TestInputsReadOldIncidents(t *testing.T) {
	old := `{"to":"orders","rate":"10","max":5,"filter":".Body.v == 2","sent_after":"2025-03-02T03:00:00Z","sent_before":"","group":"g1","canary":10,"keep":false,"native":false,"from_file":""}`
	in := InputsOf(incident.Event{Step: "redrive", Inputs: json.RawMessage(old)})
	want := selection.Selection{Max: 5, Filter: ".Body.v == 2", SentAfter: "2025-03-02T03:00:00Z", Group: "g1"}
	if diff := cmp.Diff(want, in.Selection, cmp.AllowUnexported(selection.Selection{})); diff != "" || in.To != "orders" || in.Canary != 10 {
		t.Fatalf("old inputs (-want +got):\n%s\n%+v", diff, in)
	}
	b, err := json.Marshal(in)
	if err != nil || string(b) != old {
		t.Fatalf("written back as %s (%v), want %s", b, err, old)
	}
}

// A plan whose selection was never compiled never moves everything.
func TestUncompiledSelectionRefuses(t *testing.T) {
	p := &Plan{Req: Request{Selection: selection.Selection{Filter: ".Body.v == 2"}}}
	if sel, err := p.selectFunc(); err == nil || sel != nil {
		t.Fatalf("uncompiled selection: %v", err)
	}
	if err := p.compileSelection(nil); err != nil {
		t.Fatal(err)
	}
	if sel, err := p.selectFunc(); err != nil || sel == nil {
		t.Fatalf("compiled selection: %v", err)
	}
	if sel, err := (&Plan{}).selectFunc(); err != nil || sel != nil {
		t.Fatalf("no selection: %v; want every message (nil)", err)
	}
}
