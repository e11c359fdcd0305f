package incident

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDefaultRoot(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{"XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/home/ana"}, "/s/mfdlq/incidents", false},
		{"HOME", map[string]string{"HOME": "/home/ana"}, "/home/ana/.local/state/mfdlq/incidents", false},
		{"a relative XDG_STATE_HOME is ignored", map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/ana"}, "/home/ana/.local/state/mfdlq/incidents", false},
		{"neither", map[string]string{"HOME": "relative"}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DefaultRoot(func(k string) string { return tc.env[k] })
			if got != tc.want || (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrNoStateDir)) {
				t.Errorf("DefaultRoot = %q, %v; want %q (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestMakeRoot: the per-user root is created 0700; a symlink planted at
// mfdlq/ or incidents/ is refused and not followed; an existing shared
// directory is refused and left as it was (never chmod-ed).
func TestMakeRoot(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	root := filepath.Join(state, "mfdlq", "incidents")
	if err := MakeRoot(root); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Dir(root), root} {
		st, err := os.Lstat(dir)
		if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a 0700 directory", dir, st, err)
		}
	}
	if err := MakeRoot(root); err != nil {
		t.Errorf("MakeRoot again: %v", err)
	}

	elsewhere := t.TempDir()
	linked := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(linked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(linked, "mfdlq")); err != nil {
		t.Fatal(err)
	}
	err := MakeRoot(filepath.Join(linked, "mfdlq", "incidents"))
	var unsafe *UnsafeDirError
	if !errors.As(err, &unsafe) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("MakeRoot through a symlinked mfdlq/: %v, want it refused", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("MakeRoot wrote through the link: %v", entries)
	}

	shared := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(filepath.Join(shared, "mfdlq"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(shared, "mfdlq"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := MakeRoot(filepath.Join(shared, "mfdlq", "incidents")); !errors.As(err, &unsafe) {
		t.Errorf("MakeRoot under a 0777 mfdlq/: %v, want it refused", err)
	}
	if st, _ := os.Stat(filepath.Join(shared, "mfdlq")); st.Mode().Perm() != 0o777 {
		t.Errorf("mode after the refusal %v, want 0777 left as it was", st.Mode().Perm())
	}
}

// TestLatestOpenIn: the newest open incident of either root wins; an
// incident whose record left it open (its DLQ still held messages) is
// open, one that record closed (or an older mfdlq's record) is not.
func TestLatestOpenIn(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	user, legacy := t.TempDir(), t.TempDir()
	mk := func(root, name string, evs ...Event) {
		ws, err := Open(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			ev.Time = now.Add(-time.Hour)
			if err := ws.Append(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk(legacy, "orders-dlq-20261201T0900Z", Event{Step: StepInspect})
	f, ok, err := LatestOpenIn([]string{user, legacy}, "orders-dlq", now)
	if err != nil || !ok || f.Dir != filepath.Join(legacy, "orders-dlq-20261201T0900Z") {
		t.Fatalf("LatestOpenIn = %+v %v %v, want the legacy root's open incident", f, ok, err)
	}
	mk(user, "orders-dlq-20261201T2300Z", Event{Step: StepClassify}, Event{Step: StepRecord, Verdict: RecordOpen})
	if f, ok, _ := LatestOpenIn([]string{user, legacy}, "orders-dlq", now); !ok || f.Dir != filepath.Join(user, "orders-dlq-20261201T2300Z") {
		t.Fatalf("LatestOpenIn = %+v, want the newer incident record left open", f)
	}
	// record --notify appends a notify event after its own: still closed.
	mk(user, "orders-dlq-20261201T2300Z", Event{Step: StepRecord, Verdict: RecordClosed}, Event{Step: "notify", Verdict: "sent"})
	mk(legacy, "orders-dlq-20261201T0900Z", Event{Step: StepRecord}) // an older mfdlq's record: closed
	if f, ok, _ := LatestOpenIn([]string{user, legacy}, "orders-dlq", now); ok {
		t.Fatalf("LatestOpenIn = %+v, want none: both closed", f)
	}
}
