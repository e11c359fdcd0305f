// Package journal is the redrive's append-only record of every step of every
// message (sent, deleted, failed, skipped), kept in the incident directory
// and fsynced as it goes, so that a run interrupted at any moment — SIGKILL
// included — is resumed by running it again. State is the journal folded for
// one attempt; Ledger is what a compacted journal keeps (digests, counts).
// It never imports redrive: the mover writes it, the protocol opens it.
package journal

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsjson"
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
	// OpTransformFailed: --transform failed on it or made a message SQS
	// would refuse (Error says why): made visible again, untouched.
	OpTransformFailed = "transform_failed"
	// OpDuplicate: --dedupe left it in the DLQ, untouched, because another
	// message of its key (Key) moved to DestQueue.
	OpDuplicate = "duplicate"
	// OpRun opens a run: who runs it (Operator, the STS caller's ARN) and
	// the attempt. It names no message and is counted apart (Ledger.Operators).
	OpRun = "run"
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
	// Key is the 64-bit digest of the message's --key, 16 hex digits
	// (dedupe.Hex), on a send and a duplicate of a --dedupe move: the
	// journal's fold knows every key moved, so a resumed run moves no
	// second message of one.
	Key string `json:"key,omitempty"`
	// Operator is set on an OpRun entry: the ARN of whoever ran it.
	Operator string `json:"operator,omitempty"`
}

// appendJSON appends e as encoding/json would encode it, without its
// reflection: two entries per message at --rate max made json.Marshal a
// twentieth of the client's CPU.
func (e *Entry) appendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = e.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","run":`...)
	b = sqsjson.AppendStringHTML(b, e.Run)
	if e.Attempt > 0 {
		b = strconv.AppendInt(append(b, `,"attempt":`...), int64(e.Attempt), 10)
	}
	b = append(b, `,"op":`...)
	b = sqsjson.AppendStringHTML(b, e.Op)
	b = append(b, `,"dlq_message_id":`...)
	b = sqsjson.AppendStringHTML(b, e.DLQMessageID)
	for _, f := range [...]struct{ name, v string }{
		{`,"body_sha256":`, e.BodySHA256}, {`,"dest_queue":`, e.DestQueue},
		{`,"dest_message_id":`, e.DestMessageID}, {`,"payload_sha256":`, e.PayloadSHA256}, {`,"error":`, e.Error},
		{`,"key":`, e.Key}, {`,"operator":`, e.Operator},
	} {
		if f.v != "" {
			b = sqsjson.AppendStringHTML(append(b, f.name...), f.v)
		}
	}
	return append(b, '}')
}

// ReadEntries returns every entry of a journal file in order; a missing
// file is an empty journal. A torn last line, left by a crash mid-write, is
// ignored: the operation it described is then redone, which at-least-once
// allows.
//
// A compacted journal's completed messages are no longer entries: ReadEntries
// returns its open entries and what was appended after; ReadLedger reads
// all of it.
func ReadEntries(path string) ([]Entry, error) {
	return incident.ReadJSONLines(path, func(e Entry) bool { return e.Op != opCompacted && e.Op != opDigests })
}

// Writer appends entries to a journal file, shared by the workers.
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
type Writer struct {
	mu      sync.Mutex
	f       *os.File
	buf     []byte
	written uint64 // writes so far
	synced  uint64 // writes known to be on stable storage
	err     error  // the first failed background fsync

	// Set by Open: the fold every write is applied to, and the
	// compaction (compact.go).
	state *State
	compactor

	stop chan struct{}
	done chan struct{}
	// lock is Open's lock on the journal's directory (lockDir), let go
	// of by Close.
	lock *os.File
}

// syncEvery is how often a Writer fsyncs what was written since the
// last fsync: the most a power cut can take from the journal.
const syncEvery = 200 * time.Millisecond

// NewWriter appends to f, which must be opened O_APPEND, and fsyncs
// it every SyncEvery until Close.
func NewWriter(f *os.File) *Writer {
	w := &Writer{f: f, stop: make(chan struct{}), done: make(chan struct{})}
	go w.syncLoop()
	return w
}

// Applies tells whether every entry written is applied to s already (a
// writer of Open and its State): the caller need not apply it again.
func (w *Writer) Applies(s *State) bool { return w.state == s }

// Write appends entries with one write call, so a crash leaves whole lines
// and at most one torn last line. A failed background fsync is returned by
// the next Write, so the mover stops rather than go on with a journal that
// may not reach the disk.
func (w *Writer) Write(entries ...Entry) error {
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
	if w.state != nil {
		w.state.mu.Lock()
		for i := range entries {
			w.state.l.apply(entries[i])
		}
		w.state.mu.Unlock()
	}
	w.wrote(w.buf)
	return nil
}

func (w *Writer) syncLoop() {
	defer close(w.done)
	t := time.NewTicker(syncEvery)
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
func (w *Writer) Sync() error {
	w.mu.Lock()
	upTo, f := w.written, w.f
	if w.synced >= upTo {
		w.mu.Unlock()
		return nil
	}
	w.mu.Unlock()
	err := f.Sync()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil && f != w.f {
		// A compaction replaced the file meanwhile, and synced the new
		// one before it did: what was written is on the disk.
		err = nil
	}
	if err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	w.synced = max(w.synced, upTo)
	return nil
}

// Close stops the background fsync, syncs what is left and closes the
// journal.
func (w *Writer) Close() error {
	close(w.stop)
	<-w.done
	err := w.finalCompaction()
	if serr := w.Sync(); err == nil {
		err = serr
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if w.lock != nil {
		w.lock.Close()
	}
	return err
}

// Mark is what earlier runs did to one DLQ message for one destination.
type Mark struct {
	Op            string // OpSent (not deleted yet), OpDeleted (only with keepDone), or ""
	DestMessageID string // set while it is open
}

// State is the journal folded (a Ledger) as the mover asks it: what a
// resumed run must not redo, and which messages in the DLQ came back. The
// Writer of Open applies every entry it writes to it, under
// its own lock, so a compaction never sees an entry on one side only.
type State struct {
	mu sync.RWMutex
	// attempt, when not 0, limits the returned messages to those sent in
	// that attempt: a message that came back from an earlier attempt may
	// move again after a new fix. What was sent and deleted counts across
	// attempts, so nothing is resent.
	attempt int
	l       *Ledger
}

// Apply adds one entry to the state. A 'deleted' or 'failed' never erases
// the destination MessageId a 'sent' recorded.
func (s *State) Apply(e Entry) {
	s.mu.Lock()
	s.l.apply(e)
	s.mu.Unlock()
}

// Of returns what earlier runs did to a DLQ message for destQueue: OpSent
// while its delete is not journaled (exact: the entry itself), OpDeleted
// once it is when the State keeps the deleted messages' digests (a file
// replay), else "". A message sent and deleted that shows up in the DLQ
// again (SQS can return a deleted message's copy) is then sent again: a
// duplicate, the at-least-once side, never a delete without a send.
func (s *State) Of(dlqMessageID, destQueue string) Mark {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e, ok := s.l.open[openKey{destQueue, dlqMessageID}]; ok {
		return Mark{Op: OpSent, DestMessageID: e.DestMessageID}
	}
	if s.l.keepDone && s.l.done[destQueue].has(digest(dlqMessageID)) {
		return Mark{Op: OpDeleted}
	}
	return Mark{}
}

// IsReturned tells whether a DLQ message is one this journal sent
// somewhere: the destination's consumer failed it again. It matches the
// digest of the destination MessageId (see Digest): a collision counts a
// fresh message as returned, which leaves it in the DLQ.
func (s *State) IsReturned(dlqMessageID string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.l.returned(dlqMessageID, s.attempt)
}

// KeySent tells whether a message with the --key digest d was sent to
// destQueue in this State's attempt (now) or only in an earlier one
// (before): a --dedupe move leaves a second message of that key in the
// DLQ, unless it is the one that came back from the earlier attempt.
func (s *State) KeySent(destQueue string, d uint64) (now, before bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.l.keySent(destQueue, d, s.attempt)
}

// ReturnedFromAnyAttempt tells whether a DLQ message is one this journal
// sent somewhere in any attempt (see IsReturned).
func (s *State) ReturnedFromAnyAttempt(dlqMessageID string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.l.returned(dlqMessageID, 0)
}

// FirstPayloadSent is when this attempt first sent a payload it journals
// the hash of (to a target, or a repaired copy); ok is false before any:
// a message that reached the DLQ before then came back from none of them,
// whatever its payload, and IsReturn need not hash it.
func (s *State) FirstPayloadSent() (time.Time, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.l.firstPayloadSent(s.attempt)
}

// PayloadSent tells when this attempt sent a payload to a target, its
// SHA-256 given by hash; hash is called only when the journal holds target
// sends, so that the SQS path hashes nothing.
func (s *State) PayloadSent(hash func() string) (time.Time, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.l.payloads) == 0 {
		return time.Time{}, false
	}
	return s.l.payloadSent(hash(), s.attempt)
}
