package archive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// readGz reads a .jsonl.gz of originals as any gzip reader would (its
// members one after another); it fails the test on a file that does not
// read whole.
func readGz(t *testing.T, path string) []sqsjson.Message {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := sqsjson.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s does not read whole: %v", path, err)
	}
	return msgs
}

func batchOf(run, from, n int) []sqsjson.Message {
	out := make([]sqsjson.Message, n)
	for i := range out {
		out[i] = sqsjson.Message{MessageId: fmt.Sprintf("r%d-m%d", run, from+i), ReceiptHandle: "rh", Body: fmt.Sprintf(`{"order_id":"o-%05d","version":2}`, from+i)}
	}
	return out
}

// TestOriginalsGzAppendDurably: a .jsonl.gz originals file reads whole
// after every Append (each batch one gzip member, fsynced), by a gzip
// reader and by the export reader --from-file and the undo use; a second
// run appends members and keeps each message once; it is smaller than
// the same originals uncompressed.
func TestOriginalsGzAppendDurably(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "transform-originals.jsonl.gz")
	o, err := OpenOriginals(path, dlqARN, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	for b := range 5 {
		if err := o.Append(batchOf(1, 10*b, 10)); err != nil {
			t.Fatal(err)
		}
		// Read while the file is open: the batch is whole on disk.
		if got := readGz(t, path); len(got) != 10*(b+1) || got[0].ReceiptHandle != "" || got[0].Attributes[sqsjson.AttrOriginalOf] != dlqARN {
			t.Fatalf("after batch %d: %d records, first %+v", b, len(got), got[0])
		}
	}
	o.Close()
	o2, err := OpenOriginals(path, dlqARN, "run-2")
	if err != nil {
		t.Fatal(err)
	}
	// r1-m0 is kept already: only the new one is appended.
	if err := o2.Append(append(batchOf(1, 0, 1), batchOf(2, 0, 1)...)); err != nil {
		t.Fatal(err)
	}
	o2.Close()
	got := readGz(t, path)
	if len(got) != 51 || got[50].MessageId != "r2-m0" || got[50].Attributes[sqsjson.AttrTransformRun] != "run-2" {
		t.Fatalf("after a second run: %d records, last %+v", len(got), got[len(got)-1])
	}
	f, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("the export reader cannot read it: %v", err)
	}
	defer f.Close()
	rd, err := f.Messages()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := rd.Next(); err == nil; _, err = rd.Next() {
		n++
	}
	if n != 51 {
		t.Fatalf("the export reader read %d records, want 51", n)
	}
	plain := filepath.Join(dir, "transform-originals.jsonl")
	op, err := OpenOriginals(plain, dlqARN, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	for b := range 5 {
		op.Append(batchOf(1, 10*b, 10))
	}
	op.Append(batchOf(2, 0, 1))
	op.Close()
	zs, _ := os.Stat(path)
	ps, _ := os.Stat(plain)
	if zs.Size() >= ps.Size()/2 {
		t.Fatalf("compressed %d bytes, uncompressed %d: not compressed", zs.Size(), ps.Size())
	}
}

// TestOriginalsGzCutATornMember: a member a crash cut short (a power
// cut mid-write: its copies were never sent) is cut on the next open,
// which says so, and the run appends after the last whole member; a
// damaged member is never cut (its originals may have been sent): the
// open fails.
func TestOriginalsGzCutATornMember(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl.gz")
	o, err := OpenOriginals(path, dlqARN, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	o.Append(batchOf(1, 0, 10))
	o.Append(batchOf(1, 10, 10))
	o.Close()
	whole, _ := os.ReadFile(path)
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Write([]byte(`{"MessageId":"torn","Body":"x"}` + "\n"))
	zw.Close()
	torn := member.Bytes()[:member.Len()-5]
	if err := os.WriteFile(path, append(append([]byte(nil), whole...), torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err = OpenOriginals(path, dlqARN, "run-2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o.Torn(), fmt.Sprintf("%d bytes", len(torn))) {
		t.Fatalf("Torn() = %q, want the %d bytes cut", o.Torn(), len(torn))
	}
	if err := o.Append(batchOf(2, 0, 1)); err != nil {
		t.Fatal(err)
	}
	o.Close()
	got := readGz(t, path)
	if len(got) != 21 || got[20].MessageId != "r2-m0" {
		t.Fatalf("after the cut: %d records, last %s", len(got), got[len(got)-1].MessageId)
	}
	// A damaged member in the middle: the open refuses, the file is as it was.
	bad := append([]byte(nil), whole...)
	bad[len(bad)/2] ^= 0xff
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenOriginals(path, dlqARN, "run-3"); err == nil || !strings.Contains(err.Error(), "damaged gzip member") {
		t.Fatalf("open of a damaged file: %v", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, bad) {
		t.Fatal("the open of a damaged file changed it")
	}
}

// killChildEnv makes the test binary a writer of originals that
// TestOriginalsGzSurviveSIGKILL kills.
const killChildEnv = "MFDLQ_ORIGINALS_KILL_CHILD"

// TestOriginalsGzSurviveSIGKILL: a process appending originals and killed
// (SIGKILL) at any moment leaves a .jsonl.gz that reads whole, with no
// mending, and holds every batch whose Append returned: the durability
// the mover relies on before it sends a batch's copies.
func TestOriginalsGzSurviveSIGKILL(t *testing.T) {
	if path := os.Getenv(killChildEnv); path != "" {
		o, err := OpenOriginals(path, dlqARN, "killed")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		for b := 0; ; b++ {
			if err := o.Append(batchOf(1, 10*b, 10)); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			fmt.Println("kept", b+1)
		}
	}
	t.Parallel()
	for round := range 3 {
		path := filepath.Join(t.TempDir(), "transform-originals.jsonl.gz")
		cmd := exec.Command(os.Args[0], "-test.run=^TestOriginalsGzSurviveSIGKILL$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		acked := 0
		for sc.Scan() && acked < 20+7*round {
			if n, ok := strings.CutPrefix(sc.Text(), "kept "); ok {
				acked, _ = strconv.Atoi(n)
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		got := readGz(t, path)
		if len(got) < 10*acked || len(got)%10 != 0 {
			t.Fatalf("round %d: %d batches acknowledged, the file holds %d records", round, acked, len(got))
		}
		for i, m := range got {
			if want := fmt.Sprintf("r1-m%d", i); m.MessageId != want {
				t.Fatalf("round %d: record %d is %s, want %s", round, i, m.MessageId, want)
			}
		}
	}
}

// members counts the gzip members of the file at path.
func members(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	zr, err := gzip.NewReader(br)
	n := 0
	for err == nil {
		zr.Multistream(false)
		if _, err = io.Copy(io.Discard, zr); err != nil {
			t.Fatal(err)
		}
		n++
		err = zr.Reset(br)
	}
	return n
}

// TestOriginalsGzGroupCommit: Appends that encode while another's write
// and fsync runs share the next write, one gzip member, and each returns
// only once its own records are in the file; a write that fails fails
// every Append it carried and every one after it.
func TestOriginalsGzGroupCommit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl.gz")
	o, err := OpenOriginals(path, dlqARN, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Append(batchOf(1, 0, 10)); err != nil {
		t.Fatal(err)
	}
	// A write under way: the next eight Appends encode and wait.
	o.smu.Lock()
	errs := make(chan error, 8)
	for b := 1; b <= 8; b++ {
		go func() { errs <- o.Append(batchOf(1, 10*b, 10)) }()
	}
	for queuedIn(o) < 80 {
		runtime.Gosched()
	}
	select {
	case err := <-errs:
		t.Fatalf("an Append returned (%v) before its write", err)
	default:
	}
	o.smu.Unlock()
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := readGz(t, path); len(got) != 90 || o.Written() != 90 {
		t.Fatalf("%d records in the file, %d written, want 90", len(got), o.Written())
	}
	if n := members(t, path); n != 2 {
		t.Fatalf("%d gzip members, want 2: the first Append's, and the eight that waited together", n)
	}
	// A write that fails: the Appends it carried and all later fail.
	o.smu.Lock()
	for b := 9; b <= 10; b++ {
		go func() { errs <- o.Append(batchOf(1, 10*b, 10)) }()
	}
	for queuedIn(o) < 20 {
		runtime.Gosched()
	}
	o.f.Close()
	o.smu.Unlock()
	for range 2 {
		if err := <-errs; err == nil {
			t.Fatal("an Append whose write failed returned nil")
		}
	}
	if err := o.Append(batchOf(1, 200, 1)); err == nil {
		t.Fatal("an Append after a failed write returned nil")
	}
	if got := readGz(t, path); len(got) != 90 {
		t.Fatalf("%d records in the file after the failed write, want 90", len(got))
	}
}

// BenchmarkOriginalsGzAppend is what keeping the originals costs a
// message (batches of ten from 32 goroutines, as the mover's workers,
// fsync included), in ns/op per batch.
func BenchmarkOriginalsGzAppend(b *testing.B) {
	o, err := OpenOriginals(filepath.Join(b.TempDir(), "transform-originals.jsonl.gz"), dlqARN, "run-1")
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	var next atomic.Int64
	b.SetParallelism(16) // 32 on two cores
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := o.Append(batchOf(1, int(next.Add(10)), 10)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TestOriginalsDuplicateWaitsForItsWrite: an Append whose originals are
// all kept already waits for the write that holds them — the pending one,
// or the one under way — never returning before they are on disk.
func TestOriginalsDuplicateWaitsForItsWrite(t *testing.T) {
	t.Parallel()
	o, err := OpenOriginals(filepath.Join(t.TempDir(), "transform-originals.jsonl.gz"), dlqARN, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	o.mu.Lock()
	first, _ := o.encode(batchOf(1, 0, 2))
	again, _ := o.encode(batchOf(1, 1, 1)) // r1-m1: pending, not written
	o.mu.Unlock()
	if first != 1 || again != first {
		t.Fatalf("the first Append waits for write %d, its duplicate for %d: want 1 and 1", first, again)
	}
	if err := o.commit(first); err != nil {
		t.Fatal(err)
	}
	o.mu.Lock()
	written, _ := o.encode(batchOf(1, 0, 1)) // r1-m0: in write 1, on disk
	o.mu.Unlock()
	if written != 1 || o.synced != 1 {
		t.Fatalf("a duplicate of a written original waits for write %d (synced %d): want 1", written, o.synced)
	}
}

// TestOriginalsPendingIsBounded: past maxPending an Append waits for the
// pending write to be taken before it encodes, so the copies waiting for
// an fsync stay bounded; once taken, it goes on and nothing is lost.
func TestOriginalsPendingIsBounded(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transform-originals.jsonl.gz")
	o, err := OpenOriginals(path, dlqARN, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	o.maxPending = 1 // any pending write is full
	o.smu.Lock()     // a write under way
	errs := make(chan error, 2)
	go func() { errs <- o.Append(batchOf(1, 0, 10)) }()
	for queuedIn(o) < 10 {
		runtime.Gosched()
	}
	go func() { errs <- o.Append(batchOf(1, 10, 10)) }()
	pending := 10
	for i := 0; i < 2000 && pending == 10; i++ {
		runtime.Gosched()
		pending = queuedIn(o)
	}
	o.smu.Unlock() // before any Fatal: Close waits for it
	if pending != 10 {
		t.Fatalf("%d records pending: the second Append encoded into a full pending write", pending)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := readGz(t, path); len(got) != 20 || members(t, path) != 2 {
		t.Fatalf("%d records in %d members, want 20 in 2 (the second Append's write after the first's)", len(got), members(t, path))
	}
}

// queuedIn is how many records wait in o's pending write.
func queuedIn(o *Originals) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.queued
}
