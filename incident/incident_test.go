package incident

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWorkspacePermissionsAndEvents(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "parent", "inc")
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v; want 0700 (it holds message bodies)", st.Mode().Perm())
	}
	t0 := time.Date(2026, 11, 29, 22, 4, 0, 0, time.UTC)
	for i, step := range []string{"inspect", "classify", "inspect"} {
		if err := ws.Append(Event{Step: step, Time: t0.Add(time.Duration(i) * time.Minute), Verdict: step}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ws.WriteJSON("classification.json", map[string]string{"verdict": "poison"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{EventsFile, "classification.json"} {
		if st, err := os.Stat(ws.Path(name)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", name, st.Mode().Perm(), err)
		}
	}
	events, err := ws.Events()
	if err != nil || len(events) != 3 {
		t.Fatalf("events = %v, %v; want 3", events, err)
	}
	ev, ok, err := ws.Latest("inspect")
	if err != nil || !ok || !ev.Time.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("Latest(inspect) = %v %v %v; want the third event", ev, ok, err)
	}
	if _, ok, _ := ws.Latest("redrive"); ok {
		t.Error("Latest(redrive) found an event that was never appended")
	}
	var got map[string]string
	if err := ws.ReadJSON("classification.json", &got); err != nil || got["verdict"] != "poison" {
		t.Errorf("ReadJSON = %v, %v", got, err)
	}
}

func TestEventsSkipsATornLastLine(t *testing.T) {
	ws, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Append(Event{Step: "inspect"}); err != nil {
		t.Fatal(err)
	}
	f, err := ws.OpenAppend(EventsFile)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"step":"redri`)
	f.Close()
	events, err := ws.Events()
	if err != nil || len(events) != 1 || events[0].Step != "inspect" {
		t.Errorf("events = %v, %v; want only the whole inspect event", events, err)
	}
}
