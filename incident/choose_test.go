package incident

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestChoose: --incident, then MFDLQ_INCIDENT, then the queue's open
// incident in the per-user root (continued, its last step said), else a
// new one there; no per-user place is ErrNoStateDir. OtherOpen names the
// open incident a new --incident directory would start beside.
func TestChoose(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	state := t.TempDir()
	env := map[string]string{"XDG_STATE_HOME": state}
	getenv := func(k string) string { return env[k] }
	root := filepath.Join(state, "mfdlq", "incidents")

	if dir, why, err := Choose("given", getenv, "orders-dlq", now); dir != "given" || why != "--incident" || err != nil {
		t.Errorf("Choose(--incident) = %q %q %v", dir, why, err)
	}
	env["MFDLQ_INCIDENT"] = "from-env"
	if dir, why, err := Choose("", getenv, "orders-dlq", now); dir != "from-env" || why != "MFDLQ_INCIDENT" || err != nil {
		t.Errorf("Choose(MFDLQ_INCIDENT) = %q %q %v", dir, why, err)
	}
	delete(env, "MFDLQ_INCIDENT")
	dir, why, err := Choose("", getenv, "orders-dlq", now)
	if want := filepath.Join(root, "orders-dlq-20261202T0000Z"); dir != want || err != nil {
		t.Fatalf("Choose() = %q %v, want a new %s", dir, err, want)
	}
	if want := "a new incident of orders-dlq; it stays open while the DLQ holds messages (mfdlq record --close closes it)"; why != want {
		t.Errorf("why = %q, want %q", why, want)
	}
	if _, ok := OtherOpen(getenv, "orders-dlq", "elsewhere", now); ok {
		t.Errorf("OtherOpen found an incident where there is none")
	}

	if err := MakeRoot(root); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(root, "orders-dlq-20261201T2300Z")
	ws, err := Open(open)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Append(Event{Step: StepInspect, Time: time.Date(2026, 12, 1, 23, 5, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	dir, why, err = Choose("", getenv, "orders-dlq", now)
	if want := "continuing the open incident of orders-dlq, last step inspect at 2026-12-01 23:05 UTC; --incident DIR for another"; dir != open || why != want || err != nil {
		t.Errorf("Choose() = %q %q %v, want %s (%s)", dir, why, err, open, want)
	}
	if f, ok := OtherOpen(getenv, "orders-dlq", filepath.Join(t.TempDir(), "new"), now); !ok || f.Dir != open {
		t.Errorf("OtherOpen = %+v %v, want %s", f, ok, open)
	}
	if _, ok := OtherOpen(getenv, "orders-dlq", open, now); ok {
		t.Errorf("OtherOpen named the incident the step continues")
	}

	if _, _, err := Choose("", func(string) string { return "" }, "orders-dlq", now); !errors.Is(err, ErrNoStateDir) {
		t.Errorf("Choose() without HOME = %v, want ErrNoStateDir", err)
	}
}
