package journal

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/mfdlq/mfdlq/incident"
)

// The compacted journal is the same JSON Lines file, redrive-journal.jsonl,
// rewritten: a header line (op "compacted": counts, runs, times, how many
// open entries follow), digest lines (op "digests": up to digestsPerLine
// 8-byte digests in base64, per kind, destination and attempt), the open
// entries as they were written, and then whatever was appended after the
// compaction. A journal never compacted (every small move's) is plain
// entries, as before.
const (
	opCompacted = "compacted"
	opDigests   = "digests"

	kindDestID  = "dest_message_id" // destination MessageIds sent
	kindDone    = "deleted"         // DLQ MessageIds sent and deleted (keepDone)
	kindPayload = "payload"         // payload digest, then its first send (unix ns)
	kindKey     = "key"             // --key digests sent

	digestsPerLine = 8192
)

// Count is how many entries of one operation a destination got in one
// attempt.
type Count struct {
	Dest    string `json:"dest_queue"`
	Attempt int    `json:"attempt"`
	Op      string `json:"op"`
	N       int    `json:"n"`
}

// metaLine is a header or digest line of a compacted journal.
type metaLine struct {
	Op      string         `json:"op"`
	Time    time.Time      `json:"time,omitzero"`
	Entries int            `json:"entries,omitempty"`
	Open    int            `json:"open,omitempty"`
	First   time.Time      `json:"first,omitzero"`
	Last    time.Time      `json:"last,omitzero"`
	Runs    map[string]int `json:"runs,omitempty"`
	// Operators are the runs' operators (Ledger.Operators).
	Operators map[string]string `json:"operators,omitempty"`
	Counts    []Count           `json:"counts,omitempty"`
	Kind      string            `json:"kind,omitempty"`
	Dest      string            `json:"dest_queue,omitempty"`
	Attempt   int               `json:"attempt,omitempty"`
	IDs       []byte            `json:"ids,omitempty"`
}

var metaPrefix = []byte(`{"op":"`)

// encodeSnapshot writes the Ledger as the head of a compacted journal.
func (l *Ledger) encodeSnapshot(w io.Writer, now time.Time) error {
	open := l.Open()
	h := metaLine{Op: opCompacted, Time: now.UTC(), Entries: l.entries, Open: len(open), First: l.first, Last: l.last, Runs: l.runs, Operators: l.operators}
	h.Counts = l.Counts()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for k, s := range l.sets {
		if err := writeDigests(enc, kindDestID, k, s.each); err != nil {
			return err
		}
	}
	for dest, s := range l.done {
		if err := writeDigests(enc, kindDone, setKey{dest: dest}, s.each); err != nil {
			return err
		}
	}
	for k, s := range l.keys {
		if err := writeDigests(enc, kindKey, k, s.each); err != nil {
			return err
		}
	}
	for k, m := range l.payloads {
		each := func(f func(uint64)) {
			for d, at := range m {
				f(d)
				f(uint64(at))
			}
		}
		if err := writeDigests(enc, kindPayload, k, each); err != nil {
			return err
		}
	}
	var buf []byte
	for i := range open {
		buf = append(open[i].appendJSON(buf[:0]), '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// writeDigests writes the values each yields as digest lines of
// digestsPerLine values each.
func writeDigests(enc *json.Encoder, kind string, k setKey, each func(func(uint64))) error {
	line := metaLine{Op: opDigests, Kind: kind, Dest: k.dest, Attempt: k.attempt}
	var err error
	flush := func() {
		if len(line.IDs) > 0 && err == nil {
			err = enc.Encode(line)
		}
		line.IDs = line.IDs[:0]
	}
	each(func(d uint64) {
		line.IDs = binary.LittleEndian.AppendUint64(line.IDs, d)
		if len(line.IDs) == 8*digestsPerLine {
			flush()
		}
	})
	flush()
	return err
}

// ReadLedger reads a journal (compacted or not) into a Ledger, one line at
// a time: the memory it takes is the Ledger's, not the file's. A missing
// file is an empty journal. A line that does not decode — a torn last line
// left by a crash mid-write — is skipped: the operation it described is
// redone, which at-least-once allows. keepDone keeps the digests of the
// messages sent and deleted (a replay from a file needs them).
func ReadLedger(path string, keepDone bool) (*Ledger, error) {
	l := newLedger(keepDone)
	f, err := incident.OpenRegular(path, os.O_RDONLY|syscall.O_NOFOLLOW)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if err := l.read(f); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return l, nil
}

// read folds every line of r into l.
func (l *Ledger) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	uncounted := 0 // open entries of a snapshot: its header counted them
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, metaPrefix) {
			var m metaLine
			if json.Unmarshal(line, &m) == nil {
				uncounted += l.applyMeta(&m)
			}
			continue
		}
		var e Entry
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		if uncounted > 0 {
			uncounted--
			l.open[openKey{e.DestQueue, e.DLQMessageID}] = e
			l.noteSent(e, entryAttempt(e))
			continue
		}
		l.apply(e)
	}
	return sc.Err()
}

// applyMeta folds a header or digest line in; it returns how many open
// entries follow a header.
func (l *Ledger) applyMeta(m *metaLine) int {
	switch m.Op {
	case opCompacted:
		l.entries += m.Entries
		for _, c := range m.Counts {
			l.counts[countKey{c.Dest, c.Attempt, c.Op}] += c.N
		}
		for r, a := range m.Runs {
			l.runs[r] = max(l.runs[r], a)
		}
		for r, op := range m.Operators {
			l.operators[r] = op
		}
		if !m.First.IsZero() && (l.first.IsZero() || m.First.Before(l.first)) {
			l.first = m.First
		}
		if m.Last.After(l.last) {
			l.last = m.Last
		}
		l.compacted = true
		return m.Open
	case opDigests:
		k := setKey{m.Dest, m.Attempt}
		ids := m.IDs
		switch m.Kind {
		case kindDestID:
			s := l.sets[k]
			if s == nil {
				s = newIDSet(len(ids) / 8)
				l.sets[k] = s
			}
			for ; len(ids) >= 8; ids = ids[8:] {
				s.add(binary.LittleEndian.Uint64(ids))
			}
		case kindDone:
			if l.keepDone {
				s := l.doneSet(m.Dest)
				for ; len(ids) >= 8; ids = ids[8:] {
					s.add(binary.LittleEndian.Uint64(ids))
				}
			}
		case kindKey:
			s := l.keySet(k)
			for ; len(ids) >= 8; ids = ids[8:] {
				s.add(binary.LittleEndian.Uint64(ids))
			}
		case kindPayload:
			for ; len(ids) >= 16; ids = ids[16:] {
				l.notePayload(k, binary.LittleEndian.Uint64(ids), int64(binary.LittleEndian.Uint64(ids[8:])))
			}
		}
	}
	return 0
}
