// Package redrive moves messages from a DLQ back to a queue at a bounded
// rate, at least once, never losing one. Every step of every message goes to
// an append-only journal in the incident directory, so a run interrupted at
// any moment — SIGKILL included — is resumed by running it again.
package redrive

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// Journal operations, in the order a message goes through them.
const (
	OpSent    = "sent"    // SendMessageBatch accepted it; DestMessageID is set
	OpDeleted = "deleted" // DeleteMessageBatch removed it from the DLQ
	OpFailed  = "failed"  // a 4xx or exhausted retries: it stays in the DLQ
	OpSkipped = "skipped" // not selected: made visible again, untouched
	// OpFilterError: --filter failed on it (Error says how): made visible
	// again, untouched, and counted apart from the messages not selected.
	OpFilterError = "filter_error"
)

// Entry is one line of the journal.
type Entry struct {
	Time          time.Time `json:"time"`
	Run           string    `json:"run"`
	Attempt       int       `json:"attempt,omitempty"` // the fix it was moved after (absent: 1)
	Op            string    `json:"op"`
	DLQMessageID  string    `json:"dlq_message_id"`
	BodySHA256    string    `json:"body_sha256,omitempty"`
	DestQueue     string    `json:"dest_queue,omitempty"`
	DestMessageID string    `json:"dest_message_id,omitempty"`
	// PayloadSHA256 is set on a send to a Lambda, SNS or EventBridge
	// target: the payload's hash, by which a return is recognised.
	PayloadSHA256 string `json:"payload_sha256,omitempty"`
	Error         string `json:"error,omitempty"`
}

// appendJSON appends e as encoding/json would encode it, without its
// reflection: two entries per message at --rate max made json.Marshal a
// twentieth of the client's CPU.
func (e *Entry) appendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = e.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","run":`...)
	b = appendJSONString(b, e.Run)
	if e.Attempt > 0 {
		b = strconv.AppendInt(append(b, `,"attempt":`...), int64(e.Attempt), 10)
	}
	b = append(b, `,"op":`...)
	b = appendJSONString(b, e.Op)
	b = append(b, `,"dlq_message_id":`...)
	b = appendJSONString(b, e.DLQMessageID)
	for _, f := range [...]struct{ name, v string }{
		{`,"body_sha256":`, e.BodySHA256}, {`,"dest_queue":`, e.DestQueue},
		{`,"dest_message_id":`, e.DestMessageID}, {`,"payload_sha256":`, e.PayloadSHA256}, {`,"error":`, e.Error},
	} {
		if f.v != "" {
			b = appendJSONString(append(b, f.name...), f.v)
		}
	}
	return append(b, '}')
}

// appendJSONString quotes s as encoding/json does: as is when it is plain
// printable ASCII (IDs, hashes, URLs), through json.Marshal otherwise.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// ReadJournal returns every entry of a journal file in order; a missing
// file is an empty journal. A torn last line, left by a crash mid-write, is
// ignored: the operation it described is then redone, which at-least-once
// allows.
func ReadJournal(path string) ([]Entry, error) {
	return incident.ReadJSONLines[Entry](path, nil)
}

// JournalWriter appends entries to a journal file, shared by the workers.
//
// Write hands the entries to the kernel with one write(2) before it
// returns; the mover writes a batch's 'sent' entries that way before it
// deletes the batch. Once written, an entry outlives the mfdlq process —
// Ctrl-C, a panic, SIGKILL — because it sits in the kernel's page cache.
// Getting it onto the disk, which only matters if the machine itself goes
// down, is left to a background fsync every SyncEvery: an fsync per batch
// cost a quarter of the move's throughput, and a power cut can still lose
// nothing — a message is deleted only after its send succeeded, so a lost
// 'sent' entry means a resend (a duplicate), never a loss.
type JournalWriter struct {
	mu      sync.Mutex
	f       *os.File
	buf     []byte
	written uint64 // writes so far
	synced  uint64 // writes known to be on stable storage
	err     error  // the first failed background fsync

	stop chan struct{}
	done chan struct{}
}

// SyncEvery is how often a JournalWriter fsyncs what was written since the
// last fsync: the most a power cut can take from the journal.
const SyncEvery = 200 * time.Millisecond

// NewJournalWriter appends to f, which must be opened O_APPEND, and fsyncs
// it every SyncEvery until Close.
func NewJournalWriter(f *os.File) *JournalWriter {
	w := &JournalWriter{f: f, stop: make(chan struct{}), done: make(chan struct{})}
	go w.syncLoop()
	return w
}

// Write appends entries with one write call, so a crash leaves whole lines
// and at most one torn last line. A failed background fsync is returned by
// the next Write, so the mover stops rather than go on with a journal that
// may not reach the disk.
func (w *JournalWriter) Write(entries ...Entry) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.buf = w.buf[:0]
	for i := range entries {
		w.buf = append(entries[i].appendJSON(w.buf), '\n')
	}
	if _, err := w.f.Write(w.buf); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	w.written++
	return nil
}

func (w *JournalWriter) syncLoop() {
	defer close(w.done)
	t := time.NewTicker(SyncEvery)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			if err := w.Sync(); err != nil {
				w.mu.Lock()
				if w.err == nil {
					w.err = err
				}
				w.mu.Unlock()
			}
		}
	}
}

// Sync returns once every write made before the call is on stable storage.
// Writes may go on meanwhile: the fsync runs outside the lock.
func (w *JournalWriter) Sync() error {
	w.mu.Lock()
	upTo := w.written
	if w.synced >= upTo {
		w.mu.Unlock()
		return nil
	}
	w.mu.Unlock()
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	w.mu.Lock()
	w.synced = max(w.synced, upTo)
	w.mu.Unlock()
	return nil
}

// Close stops the background fsync, syncs what is left and closes the
// journal.
func (w *JournalWriter) Close() error {
	close(w.stop)
	<-w.done
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
	// attempt, when not 0, limits the returned messages to those sent in
	// that attempt: a message that came back from an earlier attempt may
	// move again after a new fix. What was sent and deleted counts across
	// attempts, so nothing is resent.
	attempt int
	byDest  map[string]map[string]Progress // destination URL → DLQ MessageId → progress
	// destIDs maps a destination MessageId back to its DLQ MessageId: a
	// message that comes back to the DLQ after its source's consumer failed
	// again keeps the MessageId the destination gave it.
	destIDs map[string]string
	// payloads maps the payload hash of a message sent to a target to the
	// time of its first send (see PayloadReturned).
	payloads map[string]time.Time
}

// Fold builds the State of entries, every attempt's sent messages counting
// as returned when they show up in the DLQ.
func Fold(entries []Entry) *State { return FoldAttempt(entries, 0) }

// FoldAttempt builds the State of entries for attempt n: only messages sent
// in attempt n count as returned.
func FoldAttempt(entries []Entry, n int) *State {
	s := &State{attempt: n, byDest: map[string]map[string]Progress{}, destIDs: map[string]string{}}
	for _, e := range entries {
		s.Apply(e)
	}
	return s
}

// Apply adds one entry to the state. A 'deleted' or 'failed' never erases
// the destination MessageId a 'sent' recorded.
func (s *State) Apply(e Entry) {
	byID := s.byDest[e.DestQueue]
	if byID == nil {
		byID = map[string]Progress{}
		s.byDest[e.DestQueue] = byID
	}
	p := byID[e.DLQMessageID]
	s.notePayload(e)
	if (e.Op == OpSkipped || e.Op == OpFilterError) && (p.Op == OpSent || p.Op == OpDeleted) {
		return
	}
	p.Op = e.Op
	if e.DestMessageID != "" {
		p.DestMessageID = e.DestMessageID
		if s.attempt == 0 || entryAttempt(e) == s.attempt {
			s.destIDs[e.DestMessageID] = e.DLQMessageID
		}
	}
	byID[e.DLQMessageID] = p
}

// Of returns what earlier runs did to a DLQ message for destQueue.
func (s *State) Of(dlqMessageID, destQueue string) Progress {
	return s.byDest[destQueue][dlqMessageID]
}

// IsReturned tells whether a DLQ message is one this journal sent
// somewhere: the destination's consumer failed it again.
func (s *State) IsReturned(dlqMessageID string) bool {
	_, ok := s.destIDs[dlqMessageID]
	return ok
}
