package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// CompactAt is how much a journal grows (appended bytes) before it is
// compacted, and the size under which it is never compacted: a move of
// up to some 30,000 messages keeps every entry, as before. A compaction
// rewrites the whole ledger, so the next one waits for at least half the
// ledger's size in new bytes: the rewrites cost at most twice the appends.
const CompactAt = 8 << 20

// compactor is the Writer's compaction. It rewrites the journal as
// the writer's ledger (journal_snapshot.go) followed by what was appended
// since, and renames that over the journal:
//
//  1. under the writer's lock: the ledger is encoded (it folds exactly the
//     entries written so far), and the writes from then on are also kept
//     in memory (tail);
//  2. without the lock: the encoded ledger goes to redrive-journal.jsonl.compact
//     (created O_EXCL, 0600, never through a symlink) and is fsynced;
//  3. under the lock again: the tail is appended and fsynced, the file is
//     renamed over the journal, and the writer appends to it from then on.
//
// A SIGKILL before the rename leaves the journal whole (every write went
// to it) and a stale .compact file, removed by the next Open; after
// it, the new file holds the ledger and every entry written after its
// encoding, because no write happens between the tail's copy and the
// rename. Either way a rerun reads every entry or its fold. A compaction
// that fails (a full disk) leaves the journal as it was and stops
// compacting; the move goes on.
type compactor struct {
	path      string // "" : never compacts (NewWriter)
	size      int64  // bytes in the file
	since     int64  // bytes appended since the last compaction
	snapSize  int64  // the last compaction's ledger
	compactAt int64
	running   bool
	tail      []byte // writes during a compaction's step 2
	wg        sync.WaitGroup
	failed    error
}

// wrote accounts for one write; w.mu is held.
func (w *Writer) wrote(b []byte) {
	w.size += int64(len(b))
	w.since += int64(len(b))
	if w.running {
		w.tail = append(w.tail, b...)
		return
	}
	if w.path != "" && w.failed == nil && w.since >= max(w.compactAt, w.snapSize/2) {
		w.running = true
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.compact()
		}()
	}
}

// compact runs one compaction (see compactor).
func (w *Writer) compact() {
	var snap bytes.Buffer
	w.mu.Lock()
	w.state.mu.RLock()
	err := w.state.l.encodeSnapshot(&snap, time.Now())
	w.state.mu.RUnlock()
	w.tail = w.tail[:0]
	w.mu.Unlock()
	var tmp *os.File
	if err == nil {
		tmp, err = writeSnapshot(w.path+".compact", snap.Bytes())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running = false
	if err == nil {
		err = w.swap(tmp, int64(snap.Len()))
	}
	if err != nil {
		if tmp != nil {
			tmp.Close()
		}
		os.Remove(w.path + ".compact")
		w.failed = fmt.Errorf("compact journal: %w", err)
	}
	w.tail = nil
}

// writeSnapshot creates path and writes and fsyncs b.
func writeSnapshot(path string, b []byte) (*os.File, error) {
	os.Remove(path) // a stale one of a killed run
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		return f, err
	}
	return f, f.Sync()
}

// swap appends the tail to tmp, syncs it and renames it over the journal;
// w.mu is held, so nothing is written meanwhile.
func (w *Writer) swap(tmp *os.File, snapLen int64) error {
	if _, err := tmp.Write(w.tail); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), w.path); err != nil {
		return err
	}
	old := w.f
	w.f = tmp
	old.Close()
	w.size = snapLen + int64(len(w.tail))
	w.since = int64(len(w.tail))
	w.snapSize = snapLen
	w.synced = w.written // the new file was synced whole
	// The new name must survive a power cut too; if it does not, the old
	// file is found instead, which lacks only what was written since.
	if d, err := os.Open(filepath.Dir(w.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// finalCompaction waits for a compaction under way, then compacts once
// more if the journal is big and grew since: the incident directory keeps
// the ledger, not every entry.
func (w *Writer) finalCompaction() error {
	w.wg.Wait()
	w.mu.Lock()
	due := w.path != "" && w.failed == nil && w.size >= w.compactAt && w.since > 0
	if due {
		w.running = true
	}
	w.mu.Unlock()
	if due {
		w.compact()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// Open reads the journal at path (a compacted head and what was
// appended after it, or plain entries) into the State of attempt, and
// opens it for appending: every entry written is applied to that State,
// and the journal is compacted as it grows (CompactAt). keepDone keeps
// the digests of the messages sent and deleted (a replay from a file,
// which still holds them, needs them; a DLQ no longer does).
//
// It holds the journal's directory locked (lockDir) until Close, before it
// mends anything: while another process has it open, Open returns
// ErrInUse and touches nothing.
func Open(path string, attempt int, keepDone bool) (*Writer, *State, error) {
	lock, err := lockDir(path)
	if err != nil {
		return nil, nil, err
	}
	w, st, err := open(path, attempt, keepDone)
	if err != nil {
		lock.Close()
		return nil, nil, err
	}
	w.lock = lock
	return w, st, nil
}

func open(path string, attempt int, keepDone bool) (*Writer, *State, error) {
	os.Remove(path + ".compact") // a killed compaction's: the journal is whole
	l, err := ReadLedger(path, keepDone)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	size, err := endLine(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	st := &State{attempt: attempt, l: l}
	w := NewWriter(f)
	w.state = st
	// What earlier runs appended counts as growth: a journal that runs
	// killed one after another kept appending to is compacted by the
	// first write of this one.
	w.path, w.size, w.since, w.compactAt = path, size, size, CompactAt
	return w, st, nil
}

// endLine ends a torn last line (a crash mid-write) with a newline, so the
// next entry starts a line of its own instead of being lost with it, and
// returns the file's size.
func endLine(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	if last[0] == '\n' {
		return st.Size(), nil
	}
	if _, err := f.Write([]byte{'\n'}); err != nil {
		return 0, err
	}
	return st.Size() + 1, nil
}

// readState reads the journal at path into a State of every attempt,
// without opening it for writing.
func readState(path string, keepDone bool) (*State, error) {
	l, err := ReadLedger(path, keepDone)
	if err != nil {
		return nil, err
	}
	return &State{l: l}, nil
}
