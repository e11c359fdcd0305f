package incident

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLatestOpen(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	mk := func(name string, steps ...string) {
		ws, err := Open(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			if err := ws.Append(Event{Step: s, Time: now.Add(-time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, ok, err := LatestOpenIn([]string{root}, "orders-dlq", now); ok || err != nil {
		t.Fatalf("empty root: ok %v err %v", ok, err)
	}
	mk("orders-dlq-2026-11-29", "contain")               // legacy, open
	mk("orders-dlq-20261130T2104Z", "contain", "record") // closed
	mk("orders-dlq-20261130T2310Z", "inspect")           // open, newest of orders-dlq
	mk("orders-dlq-2-20261201T0100Z", "inspect")         // another queue
	mk("orders-dlq-notes")                               // not an incident name
	if err := os.Symlink(filepath.Join(root, "orders-dlq-2026-11-29"), filepath.Join(root, "orders-dlq-20261202T0000Z")); err != nil {
		t.Fatal(err)
	}
	f, ok, err := LatestOpenIn([]string{root}, "orders-dlq", now)
	if err != nil || !ok || filepath.Base(f.Dir) != "orders-dlq-20261130T2310Z" || f.Last.Step != "inspect" {
		t.Fatalf("LatestOpen = %+v %v %v; want orders-dlq-20261130T2310Z (the symlink and the other queue ignored)", f, ok, err)
	}
	mk("orders-dlq-20261130T2310Z", "record")
	if f, _, _ := LatestOpenIn([]string{root}, "orders-dlq", now); filepath.Base(f.Dir) != "orders-dlq-2026-11-29" {
		t.Fatalf("after record closed the newest: %s, want the legacy open one", f.Dir)
	}
	start := time.Date(2026, 11, 30, 21, 4, 59, 0, time.UTC)
	if got := NewDir(root, "orders-dlq", start); filepath.Base(got) != "orders-dlq-20261130T2104Z-2" {
		t.Fatalf("NewDir = %s; the closed incident's name is taken", got)
	}
	mk("orders-dlq-20261130T2104Z-2", "inspect")
	if f, _, _ := LatestOpenIn([]string{root}, "orders-dlq", now); filepath.Base(f.Dir) != "orders-dlq-20261130T2104Z-2" {
		t.Fatalf("LatestOpen = %s, want the -2 incident", f.Dir)
	}
}

func TestLatestOpenSkipsStaleIncidents(t *testing.T) {
	root := t.TempDir()
	ws, err := Open(filepath.Join(root, "orders-dlq-20260101T0000Z"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Append(Event{Step: "inspect", Time: time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := LatestOpenIn([]string{root}, "orders-dlq", time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)); !ok {
		t.Error("an incident 9 days idle is continued")
	}
	if _, ok, _ := LatestOpenIn([]string{root}, "orders-dlq", time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)); ok {
		t.Error("an incident idle for a month is not continued: its messages are gone from the DLQ")
	}
}
