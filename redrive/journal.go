// Package redrive moves messages from a DLQ back to a queue at a bounded
// rate, at least once, never losing one. Every step of every message goes to
// an append-only journal in the incident directory, so a run interrupted at
// any moment — SIGKILL included — is resumed by running it again.
package redrive

import (
	"encoding/json"
	"fmt"
	"github.com/mfdlq/mfdlq/runbook"
	"os"
	"sync"
	"time"
)

// JournalFile is the journal's name inside the incident directory.
const JournalFile = "redrive-journal.jsonl"

// Journal operations, in the order a message goes through them.
const (
	OpSent    = "sent"    // SendMessageBatch accepted it; DestMessageID is set
	OpDeleted = "deleted" // DeleteMessageBatch removed it from the DLQ
	OpFailed  = "failed"  // a 4xx or exhausted retries: it stays in the DLQ
	OpSkipped = "skipped" // not selected: made visible again, untouched
)

// Entry is one line of the journal.
type Entry struct {
	Time          time.Time `json:"time"`
	Run           string    `json:"run"`
	Op            string    `json:"op"`
	DLQMessageID  string    `json:"dlq_message_id"`
	BodySHA256    string    `json:"body_sha256,omitempty"`
	DestQueue     string    `json:"dest_queue,omitempty"`
	DestMessageID string    `json:"dest_message_id,omitempty"`
	Error         string    `json:"error,omitempty"`
}

// ReadJournal returns every entry of a journal file in order; a missing
// file is an empty journal. A torn last line, left by a crash mid-write, is
// ignored: the operation it described is then redone, which at-least-once
// allows.
func ReadJournal(path string) ([]Entry, error) {
	return runbook.ReadJSONLines[Entry](path, nil)
}

// JournalWriter appends entries to a journal file. Sync must be called (and
// succeed) after a batch of 'sent' entries and before the matching delete:
// that order is what makes a crash at any moment lose nothing. Workers
// share one writer: concurrent Syncs are committed as a group, one fsync
// covering every write made before it started.
type JournalWriter struct {
	mu      sync.Mutex
	f       *os.File
	buf     []byte
	written uint64 // writes so far

	syncMu sync.Mutex // one fsync at a time
	synced uint64     // writes known to be on stable storage
}

// NewJournalWriter appends to f, which must be opened O_APPEND.
func NewJournalWriter(f *os.File) *JournalWriter { return &JournalWriter{f: f} }

// Write appends entries with one write call, so a crash leaves whole lines
// and at most one torn last line.
func (w *JournalWriter) Write(entries ...Entry) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = w.buf[:0]
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode journal entry: %w", err)
		}
		w.buf = append(append(w.buf, b...), '\n')
	}
	if _, err := w.f.Write(w.buf); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	w.written++
	return nil
}

// Sync returns once every write made before the call is on stable storage.
// A caller that finds an fsync in progress waits for it, and then either
// its writes are covered (that fsync began after them) or it runs the next
// fsync, for itself and every other write made by then.
func (w *JournalWriter) Sync() error {
	w.mu.Lock()
	mine := w.written
	w.mu.Unlock()
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	if w.synced >= mine {
		return nil
	}
	w.mu.Lock()
	upTo := w.written
	w.mu.Unlock()
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	w.synced = upTo
	return nil
}

// Close syncs and closes the journal.
func (w *JournalWriter) Close() error {
	err := w.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Progress is what earlier runs did to one DLQ message for one destination.
type Progress struct {
	Op            string // the latest op: OpSent, OpDeleted, OpFailed or OpSkipped
	DestMessageID string // set once it was sent
}

// State is a journal folded into the latest op per DLQ message and
// destination queue: what a resumed run must not redo.
type State struct {
	byKey map[string]Progress
	// destIDs maps a destination MessageId back to its DLQ MessageId: a
	// message that comes back to the DLQ after its source's consumer failed
	// again keeps the MessageId the destination gave it.
	destIDs map[string]string
}

// Fold builds the State of entries.
func Fold(entries []Entry) *State {
	s := &State{byKey: map[string]Progress{}, destIDs: map[string]string{}}
	for _, e := range entries {
		s.Apply(e)
	}
	return s
}

// Apply adds one entry to the state. A 'deleted' or 'failed' never erases
// the destination MessageId a 'sent' recorded.
func (s *State) Apply(e Entry) {
	k := key(e.DLQMessageID, e.DestQueue)
	p := s.byKey[k]
	if e.Op == OpSkipped && (p.Op == OpSent || p.Op == OpDeleted) {
		return
	}
	p.Op = e.Op
	if e.DestMessageID != "" {
		p.DestMessageID = e.DestMessageID
		s.destIDs[e.DestMessageID] = e.DLQMessageID
	}
	s.byKey[k] = p
}

// Of returns what earlier runs did to a DLQ message for destQueue.
func (s *State) Of(dlqMessageID, destQueue string) Progress {
	return s.byKey[key(dlqMessageID, destQueue)]
}

// IsReturned tells whether a DLQ message is one this journal sent
// somewhere: the destination's consumer failed it again.
func (s *State) IsReturned(dlqMessageID string) bool {
	_, ok := s.destIDs[dlqMessageID]
	return ok
}

func key(id, dest string) string { return dest + "\x00" + id }
