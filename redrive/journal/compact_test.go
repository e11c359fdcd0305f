package journal

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// openSmall opens a journal that compacts every few KiB.
func openSmall(t *testing.T, path string, keepDone bool) (*Writer, *State) {
	t.Helper()
	jw, st, err := Open(path, 1, keepDone)
	if err != nil {
		t.Fatal(err)
	}
	jw.compactAt = 4 << 10
	return jw, st
}

func sentEntry(i int) Entry {
	return Entry{Time: time.Unix(1700000000, int64(i)).UTC(), Run: "r1", Attempt: 1, Op: OpSent, DLQMessageID: "m-" + strconv.Itoa(i),
		BodySHA256: "b", DestQueue: "q", DestMessageID: "d-" + strconv.Itoa(i)}
}

func deletedEntry(i int) Entry {
	return Entry{Time: time.Unix(1700000000, int64(i)).UTC(), Run: "r1", Attempt: 1, Op: OpDeleted, DLQMessageID: "m-" + strconv.Itoa(i), DestQueue: "q"}
}

// A compacted journal keeps the open entries exactly, folds the rest into
// counts and digests, and a rerun reads the same state as from the
// uncompacted journal.
func TestCompactionKeepsWhatAResumeNeeds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redrive-journal.jsonl")
	jw, st := openSmall(t, path, false)
	const n = 2000
	for i := range n {
		if err := jw.Write(sentEntry(i)); err != nil {
			t.Fatal(err)
		}
		if i%100 != 7 { // every hundredth stays open: sent, delete not journaled
			if err := jw.Write(deletedEntry(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := jw.Write(Entry{Run: "r1", Op: OpSkipped, DLQMessageID: "s-1", DestQueue: "q"}); err != nil {
		t.Fatal(err)
	}
	if got := st.Of("m-7", "q"); got.Op != OpSent || got.DestMessageID != "d-7" {
		t.Fatalf("in-run state of an open message: %+v", got)
	}
	if err := jw.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := ReadLedger(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Compacted() {
		t.Fatal("a journal over compactAt was not compacted")
	}
	open := l.Open()
	if len(open) != n/100 {
		t.Fatalf("open entries: %d, want %d", len(open), n/100)
	}
	for _, e := range open {
		if e.Op != OpSent || (e.DLQMessageID[len(e.DLQMessageID)-1] != '7') {
			t.Fatalf("open entry %+v is not one whose delete was missing", e)
		}
	}
	want := map[string]int{OpSent: n, OpDeleted: n - n/100, OpSkipped: 1}
	for _, c := range l.Counts() {
		if c.N != want[c.Op] || c.Dest != "q" || c.Attempt != 1 {
			t.Errorf("count %+v, want %d", c, want[c.Op])
		}
	}
	if l.Entries() != 2*n-n/100+1 {
		t.Errorf("entries %d", l.Entries())
	}
	for i := range n {
		if !l.Returned("d-"+strconv.Itoa(i), 1) || !l.Returned("d-"+strconv.Itoa(i), 0) {
			t.Fatalf("destination MessageId d-%d lost by the compaction", i)
		}
	}
	if l.Returned("d-x", 0) || l.Returned("d-1", 2) {
		t.Fatal("a MessageId never sent (or sent in another attempt) counts as returned")
	}
	info, _ := os.Stat(path)
	if info.Size() > 64<<10 {
		t.Errorf("compacted journal is %d bytes", info.Size())
	}
	entries, _ := ReadEntries(path)
	if len(entries) != n/100 {
		t.Errorf("ReadEntries of a compacted journal: %d entries, want the %d open ones", len(entries), n/100)
	}
	// A resume from the compacted file sees the same open messages.
	_, st2 := openSmall(t, path, false)
	if st2.Of("m-7", "q").Op != OpSent || st2.Of("m-8", "q").Op != "" || !st2.IsReturned("d-8") {
		t.Fatalf("resumed state: m-7 %+v, m-8 %+v", st2.Of("m-7", "q"), st2.Of("m-8", "q"))
	}
}

// A file replay keeps the deleted messages' digests across compactions.
func TestCompactionKeepsDeletedDigestsForAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redrive-journal.jsonl")
	jw, _ := openSmall(t, path, true)
	for i := range 500 {
		jw.Write(sentEntry(i))
		jw.Write(deletedEntry(i))
	}
	jw.Close()
	st, err := readState(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if st.Of("m-3", "q").Op != OpDeleted || st.Of("m-3", "other").Op != "" || st.Of("m-x", "q").Op != "" {
		t.Fatalf("deleted digests: %+v %+v", st.Of("m-3", "q"), st.Of("m-x", "q"))
	}
	if st, _ := readState(path, false); st.Of("m-3", "q").Op != "" {
		t.Fatal("a DLQ's state keeps deleted digests it does not need")
	}
}

// Kill points of a compaction: a stale .compact file next to a whole
// journal (killed before the rename) is ignored and removed; a torn last
// line (killed mid-write) loses only itself, and the next entry, appended
// after it, is read.
func TestCompactionKillPointsAndTornLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "redrive-journal.jsonl")
	jw, _ := openSmall(t, path, false)
	for i := range 300 {
		jw.Write(sentEntry(i))
		jw.Write(deletedEntry(i))
	}
	jw.Write(sentEntry(300))
	jw.Close()
	// Killed before a rename: half a snapshot in .compact.
	if err := os.WriteFile(path+".compact", []byte(`{"op":"compacted","entries":9999`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Killed mid-write: a torn entry at the end.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"time":"2026-12-01T00:00:00Z","run":"r1","op":"sent","dlq_message_id":"m-9`)
	f.Close()
	jw, st := openSmall(t, path, false)
	if _, err := os.Stat(path + ".compact"); !os.IsNotExist(err) {
		t.Fatalf("stale .compact file still there: %v", err)
	}
	if st.Of("m-300", "q").Op != OpSent || st.Of("m-9", "q").Op != "" {
		t.Fatalf("after the kill: m-300 %+v, m-9 %+v", st.Of("m-300", "q"), st.Of("m-9", "q"))
	}
	jw.Write(sentEntry(301))
	jw.Close()
	l, _ := ReadLedger(path, false)
	if len(l.Open()) != 2 || !l.Returned("d-301", 1) {
		t.Fatalf("the entry written after a torn line was lost: open %+v", l.Open())
	}
}

// Runs killed before their journal grew by compactAt each still get it
// compacted: what earlier runs appended counts as growth.
func TestCompactionAcrossKilledRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redrive-journal.jsonl")
	for run := range 6 {
		jw, _ := openSmall(t, path, false)
		jw.compactAt = 16 << 10
		for i := run * 40; i < run*40+40; i++ { // about 14 KiB: under compactAt
			jw.Write(sentEntry(i))
			jw.Write(deletedEntry(i))
		}
		jw.wg.Wait()
		jw.f.Close() // killed: no final compaction, and the kernel drops its lock
		jw.lock.Close()
	}
	l, _ := ReadLedger(path, false)
	info, _ := os.Stat(path)
	if !l.Compacted() || info.Size() > 32<<10 {
		t.Fatalf("six runs of 14 KiB each: compacted %v, %d bytes", l.Compacted(), info.Size())
	}
	if !l.Returned("d-0", 1) || !l.Returned("d-239", 1) || len(l.Open()) != 0 {
		t.Fatalf("sends lost across the compactions: open %d", len(l.Open()))
	}
}

// SIGKILL at random moments while a child process writes and compacts:
// every entry whose Write returned is in the journal the next run reads
// (open if its delete was not written, else counted), and the file stays
// small.
func TestCompactionSurvivesSIGKILL(t *testing.T) {
	if path := os.Getenv("MFDLQ_JOURNAL_CHILD"); path != "" {
		journalChild(path)
		return
	}
	if testing.Short() {
		t.Skip("kills a child process 12 times")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for k := range 12 {
		path := filepath.Join(dir, fmt.Sprintf("j%d.jsonl", k))
		cmd := exec.Command(os.Args[0], "-test.run=^TestCompactionSurvivesSIGKILL$")
		cmd.Env = append(os.Environ(), "MFDLQ_JOURNAL_CHILD="+path)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := make(chan int, 1<<16)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if i, err := strconv.Atoi(sc.Text()); err == nil {
					acked <- i
				}
			}
			close(acked)
		}()
		time.Sleep(time.Duration(50+rng.IntN(400)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		last := -1
		for i := range acked {
			last = max(last, i)
		}
		if last < 0 {
			continue
		}
		l, err := ReadLedger(path, false)
		if err != nil {
			t.Fatal(err)
		}
		sent := 0
		for _, c := range l.Counts() {
			if c.Op == OpSent {
				sent = c.N
			}
		}
		if sent <= last {
			t.Fatalf("kill %d: %d sent entries read back, %d acknowledged", k, sent, last+1)
		}
		open := map[string]bool{}
		for _, e := range l.Open() {
			open[e.DLQMessageID] = true
		}
		for i := 0; i <= last; i++ {
			if !l.Returned("d-"+strconv.Itoa(i), 1) {
				t.Fatalf("kill %d: the send of m-%d (acknowledged) is gone", k, i)
			}
			if i%10 == 3 && !open["m-"+strconv.Itoa(i)] {
				t.Fatalf("kill %d: m-%d was sent and never deleted but is not open", k, i)
			}
		}
		info, _ := os.Stat(path)
		t.Logf("kill %d: %d acknowledged, journal %d bytes, compacted %v, %d open", k, last+1, info.Size(), l.Compacted(), len(open))
	}
}

// journalChild writes sent (then, but for every tenth, deleted) entries
// as fast as it can, compacting every 4 KiB, printing each index once its
// 'sent' is written.
func journalChild(path string) {
	jw, _, err := Open(path, 1, false)
	if err != nil {
		os.Exit(1)
	}
	jw.compactAt = 4 << 10
	w := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		if jw.Write(sentEntry(i)) != nil {
			os.Exit(1)
		}
		fmt.Fprintln(w, i)
		if i%10 != 3 {
			jw.Write(deletedEntry(i))
		}
		if i%64 == 0 {
			w.Flush()
		}
	}
}

// Each run's entry names its operator; the operators outlive a compaction
// and a run entry counts as no message's operation.
func TestRunOperatorsSurviveCompaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redrive-journal.jsonl")
	jw, _ := openSmall(t, path, false)
	ana, bo := "arn:aws:sts::123456789012:assumed-role/oncall/ana", "arn:aws:iam::123456789012:user/bo"
	if err := jw.Write(Entry{Time: time.Unix(1700000000, 0).UTC(), Run: "r1", Attempt: 1, Op: OpRun, Operator: ana}); err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		if err := jw.Write(sentEntry(i), deletedEntry(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := jw.Write(Entry{Time: time.Unix(1700000100, 0).UTC(), Run: "r2", Attempt: 2, Op: OpRun, Operator: bo}); err != nil {
		t.Fatal(err)
	}
	l := closeCompacted(t, jw, path)
	if got := l.Operators(); len(got) != 2 || got["r1"] != ana || got["r2"] != bo {
		t.Errorf("operators %v", got)
	}
	if l.Runs()["r2"] != 2 {
		t.Errorf("runs %v", l.Runs())
	}
	for _, c := range l.Counts() {
		if c.Op == OpRun {
			t.Errorf("a run entry counted as an operation: %+v", c)
		}
	}
}

// The undo of a --transform reads the deletes of a compacted journal
// (written keeping their digests, as a transform's move does): what left
// the DLQ is still known, what was only sent is not, and the queue that
// got the copies is named.
func TestReadUndoAfterCompaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redrive-journal.jsonl")
	jw, _ := openSmall(t, path, true)
	for i := range 500 {
		jw.Write(sentEntry(i))
		if i != 7 {
			jw.Write(deletedEntry(i))
		}
	}
	jw.Close()
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(`"op":"compacted"`)) {
		t.Fatal("the journal was not compacted")
	}
	u, found, err := ReadUndo(path)
	if err != nil || !found {
		t.Fatal(found, err)
	}
	if !u.Deleted("m-3") || !u.Deleted("m-499") || u.Deleted("m-7") || u.Deleted("m-x") {
		t.Fatalf("deleted: m-3 %v, m-499 %v, m-7 %v, m-x %v", u.Deleted("m-3"), u.Deleted("m-499"), u.Deleted("m-7"), u.Deleted("m-x"))
	}
	if len(u.SentTo) != 1 || u.SentTo[0] != "q" {
		t.Fatalf("sent to %v", u.SentTo)
	}
}
