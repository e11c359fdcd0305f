// Package redrive moves messages from a DLQ back to a queue at a bounded
// rate, at least once, never losing one. Every step of every message goes to
// an append-only journal in the incident directory, so a run interrupted at
// any moment — SIGKILL included — is resumed by running it again.
package redrive

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return []Entry{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeJournal(f)
}

func decodeJournal(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	entries := []Entry{}
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			continue
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return entries, fmt.Errorf("read journal: %w", err)
	}
	return entries, nil
}
