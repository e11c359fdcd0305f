package journal

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestJournalSyncsInTheBackgroundAndOnClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redrive-journal.jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	jw := NewWriter(f)
	if err := jw.Write(Entry{Op: OpSent, DLQMessageID: "a", DestQueue: "q", DestMessageID: "d-a"}); err != nil {
		t.Fatal(err)
	}
	// Written means in the file at once, before any fsync: a reader (the
	// rerun after a SIGKILL) sees it.
	if got, err := ReadEntries(path); err != nil || len(got) != 1 || got[0].DestMessageID != "d-a" {
		t.Fatalf("right after Write: %+v, %v", got, err)
	}
	deadline := time.Now().Add(20 * syncEvery)
	for {
		jw.mu.Lock()
		synced, written := jw.synced, jw.written
		jw.mu.Unlock()
		if synced == written {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no background fsync after %v: %d of %d writes synced", 20*syncEvery, synced, written)
		}
		time.Sleep(syncEvery / 4)
	}
	if err := jw.Write(Entry{Op: OpDeleted, DLQMessageID: "a", DestQueue: "q"}); err != nil {
		t.Fatal(err)
	}
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	if jw.synced != jw.written {
		t.Fatalf("Close left %d of %d writes unsynced", jw.written-jw.synced, jw.written)
	}
	got, err := ReadEntries(path)
	st, serr := readState(path, true)
	if err != nil || serr != nil || len(got) != 2 || st.Of("a", "q").Op != OpDeleted {
		t.Fatalf("after Close: %+v, %v, %v", got, err, serr)
	}
}

// A journal that cannot reach the disk stops the move at the next write.
func TestJournalFailedSyncFailsTheNextWrite(t *testing.T) {
	r, w, err := os.Pipe() // writes work, fsync on a pipe fails (EINVAL)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	jw := NewWriter(w)
	defer jw.Close()
	if err := jw.Write(Entry{Op: OpSent, DLQMessageID: "a"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * syncEvery)
	for {
		err := jw.Write(Entry{Op: OpSent, DLQMessageID: "b"})
		if err != nil {
			if !strings.Contains(err.Error(), "sync journal") {
				t.Fatalf("want the fsync failure, got %v", err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("writes still accepted after the background fsync failed")
		}
		time.Sleep(syncEvery / 4)
	}
}

// The journal's own encoder writes exactly what encoding/json would.
func TestEntryEncodesLikeEncodingJSON(t *testing.T) {
	when := time.Date(2026, 11, 30, 3, 4, 5, 120000000, time.UTC)
	for _, e := range []Entry{
		{},
		{Time: when, Run: "r-20261130T030405Z", Op: OpSent, DLQMessageID: "9b2c-41", BodySHA256: strings.Repeat("ab", 32), DestQueue: "https://sqs.eu-west-1.amazonaws.com/123456789012/orders", DestMessageID: "d-1"},
		{Time: when.In(time.FixedZone("CET", 3600)), Op: OpFailed, DLQMessageID: "x", Error: `InvalidParameterValue: "body" <too big> & more`},
		{Time: when, Op: OpFailed, Error: "tab\there, newline\nthere, é, \u2028, \x01, bad utf-8 \xff"},
		{Time: when, Op: OpSkipped, DLQMessageID: `back\slash`},
		{Time: when, Run: "r", Attempt: 2, Op: OpFilterError, DLQMessageID: "m", Error: "cannot index string with \"x\""},
		{Time: when, Run: "r", Attempt: 2, Op: OpRun, Operator: "arn:aws:sts::123456789012:assumed-role/oncall/ana"},
	} {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.appendJSON(nil); string(got) != string(want) {
			t.Errorf("appendJSON:\n got %s\nwant %s", got, want)
		}
	}
}

// Only messages sent in the State's attempt count as returned (attempt 0:
// every attempt's); what was sent counts across attempts, so nothing is
// resent. The State is Open's, the entries written through its Writer.
func TestStateAttempt(t *testing.T) {
	entries := []Entry{
		{Op: OpSent, DLQMessageID: "a", DestQueue: "q", DestMessageID: "a2"},
		{Op: OpSent, Attempt: 2, DLQMessageID: "a2", DestQueue: "q", DestMessageID: "a3"},
	}
	state := func(n int) *State {
		w, st, err := Open(filepath.Join(t.TempDir(), "redrive-journal.jsonl"), n, true)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Write(entries...); err != nil {
			t.Fatal(err)
		}
		return st
	}
	s := state(2)
	if s.IsReturned("a2") || !s.IsReturned("a3") || s.Of("a2", "q").Op != OpSent {
		t.Errorf("attempt 2: a2 returned %v, a3 returned %v, a2 op %q", s.IsReturned("a2"), s.IsReturned("a3"), s.Of("a2", "q").Op)
	}
	if s := state(1); !s.IsReturned("a2") || s.IsReturned("a3") {
		t.Error("attempt 1 must count only its own sends as returned")
	}
	if s := state(0); !s.IsReturned("a2") || !s.IsReturned("a3") {
		t.Error("attempt 0 counts every attempt's sends")
	}
}
