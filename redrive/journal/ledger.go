package journal

import (
	"sort"
	"strconv"
	"time"
)

// Ledger is a journal folded (ReadLedger, or the Writer's own
// fold) into what a resume, verify and the report
// need, in memory bounded by what is in flight rather than by what moved:
//
//   - the open entries: sent and not deleted (a rerun deletes them without
//     sending again), exactly as written;
//   - per destination and attempt, the digests of the destination
//     MessageIds sent (a message that comes back to the DLQ carries one:
//     IsReturned, and verify's match);
//   - per destination, the digests of the DLQ MessageIds sent and deleted,
//     only when a resume needs them (keepDone: a file replayed by
//     --from-file still holds every line);
//   - the payload digests of sends to a target, with their first send;
//   - per destination and attempt, the --key digests sent (a --dedupe
//     move moves no second message of a key);
//   - counts per destination, attempt and operation, the runs and their
//     attempts, the first and last entry's time.
//
// A sent+deleted pair becomes a count and an 8-byte digest; skipped,
// failed and filter_error entries become counts.
type Ledger struct {
	keepDone  bool
	compacted bool // the file was compacted at least once
	open      map[openKey]Entry
	sets      map[setKey]*idSet
	done      map[string]*idSet
	payloads  map[setKey]map[uint64]int64
	keys      map[setKey]*idSet
	counts    map[countKey]int
	runs      map[string]int
	operators map[string]string // run → the ARN of who ran it (OpRun)
	entries   int
	first     time.Time
	last      time.Time

	// firstPayload is each attempt's earliest payload send (UnixNano).
	firstPayload map[int]int64
}

type openKey struct{ dest, id string }

type setKey struct {
	dest    string
	attempt int
}

type countKey struct {
	dest    string
	attempt int
	op      string
}

func newLedger(keepDone bool) *Ledger {
	return &Ledger{keepDone: keepDone, open: map[openKey]Entry{}, sets: map[setKey]*idSet{}, done: map[string]*idSet{},
		payloads: map[setKey]map[uint64]int64{}, keys: map[setKey]*idSet{}, counts: map[countKey]int{}, runs: map[string]int{}, operators: map[string]string{}}
}

// apply folds one entry in. A 'deleted' closes the open 'sent' of the same
// message and destination; a 'failed', 'skipped' or 'filter_error' after a
// 'sent' leaves it open (the message was sent: never send it again).
func (l *Ledger) apply(e Entry) {
	att := entryAttempt(e)
	if e.Op == OpRun {
		l.noteRun(e, att)
		return
	}
	l.count(e, att)
	k := openKey{e.DestQueue, e.DLQMessageID}
	switch e.Op {
	case OpSent:
		l.open[k] = e
		l.noteSent(e, att)
	case OpDeleted:
		delete(l.open, k)
		if l.keepDone {
			l.doneSet(e.DestQueue).add(digest(e.DLQMessageID))
		}
	}
}

// count adds e to the counts and times without touching the open set.
func (l *Ledger) count(e Entry, att int) {
	l.entries++
	l.counts[countKey{e.DestQueue, att, e.Op}]++
	if e.Run != "" {
		l.runs[e.Run] = max(l.runs[e.Run], att)
	}
	if !e.Time.IsZero() {
		if l.first.IsZero() || e.Time.Before(l.first) {
			l.first = e.Time
		}
		if e.Time.After(l.last) {
			l.last = e.Time
		}
	}
}

// noteRun keeps who ran a run: one entry per run, so the map stays as
// small as the runs. It is no message's operation: not in the counts.
func (l *Ledger) noteRun(e Entry, att int) {
	l.entries++
	if e.Run == "" {
		return
	}
	l.runs[e.Run] = max(l.runs[e.Run], att)
	if e.Operator != "" {
		l.operators[e.Run] = e.Operator
	}
}

// noteSent keeps the digest of a send's destination MessageId, and the
// earliest send of a payload sent to a target.
func (l *Ledger) noteSent(e Entry, att int) {
	sk := setKey{e.DestQueue, att}
	if e.DestMessageID != "" {
		s := l.sets[sk]
		if s == nil {
			s = newIDSet(0)
			l.sets[sk] = s
		}
		s.add(digest(e.DestMessageID))
	}
	if e.PayloadSHA256 != "" {
		l.notePayload(sk, digest(e.PayloadSHA256), e.Time.UnixNano())
	}
	if d, err := strconv.ParseUint(e.Key, 16, 64); err == nil && d != 0 {
		l.keySet(sk).add(d)
	}
}

func (l *Ledger) keySet(k setKey) *idSet {
	s := l.keys[k]
	if s == nil {
		s = newIDSet(0)
		l.keys[k] = s
	}
	return s
}

// keySent tells whether a key digest was sent to dest in attempt
// (now), or only in another attempt (before).
func (l *Ledger) keySent(dest string, d uint64, attempt int) (now, before bool) {
	for k, s := range l.keys {
		if k.dest != dest || !s.has(d) {
			continue
		}
		if attempt == 0 || k.attempt == attempt {
			now = true
		} else {
			before = true
		}
	}
	return now, before
}

func (l *Ledger) notePayload(sk setKey, d uint64, at int64) {
	if l.firstPayload == nil {
		l.firstPayload = map[int]int64{}
	}
	if first, ok := l.firstPayload[sk.attempt]; !ok || at < first {
		l.firstPayload[sk.attempt] = at
	}
	m := l.payloads[sk]
	if m == nil {
		m = map[uint64]int64{}
		l.payloads[sk] = m
	}
	if old, ok := m[d]; !ok || at < old {
		m[d] = at
	}
}

func (l *Ledger) doneSet(dest string) *idSet {
	s := l.done[dest]
	if s == nil {
		s = newIDSet(0)
		l.done[dest] = s
	}
	return s
}

// returned tells whether id is the destination MessageId of a send of
// attempt (0: any attempt), to any destination.
func (l *Ledger) returned(id string, attempt int) bool {
	d := digest(id)
	for k, s := range l.sets {
		if (attempt == 0 || k.attempt == attempt) && s.has(d) {
			return true
		}
	}
	return false
}

// firstPayloadSent is the earliest payload send in attempt (0: any).
func (l *Ledger) firstPayloadSent(attempt int) (time.Time, bool) {
	var first int64
	found := false
	for a, at := range l.firstPayload {
		if (attempt == 0 || a == attempt) && (!found || at < first) {
			first, found = at, true
		}
	}
	return time.Unix(0, first).UTC(), found
}

// payloadSent is the first send of a payload hash in attempt (0: any).
func (l *Ledger) payloadSent(hash string, attempt int) (time.Time, bool) {
	d := digest(hash)
	var first int64
	found := false
	for k, m := range l.payloads {
		if attempt != 0 && k.attempt != attempt {
			continue
		}
		if at, ok := m[d]; ok && (!found || at < first) {
			first, found = at, true
		}
	}
	return time.Unix(0, first).UTC(), found
}

// Open returns the entries still open — sent and not deleted (pending
// deletes, or copies of a --keep run) — in journal order (by time, then
// id).
func (l *Ledger) Open() []Entry {
	out := make([]Entry, 0, len(l.open))
	for _, e := range l.open {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.Before(out[j].Time)
		}
		return out[i].DLQMessageID < out[j].DLQMessageID
	})
	return out
}

// Compacted tells whether the journal was compacted: its completed
// messages are counts and digests, no longer entries.
func (l *Ledger) Compacted() bool { return l.compacted }

// Counts returns the entries per destination, attempt and operation,
// sorted. A message is counted once per entry: sent and deleted once
// each, a message skipped by two runs twice.
func (l *Ledger) Counts() []Count {
	out := make([]Count, 0, len(l.counts))
	for k, n := range l.counts {
		out = append(out, Count{Dest: k.dest, Attempt: k.attempt, Op: k.op, N: n})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Dest != b.Dest {
			return a.Dest < b.Dest
		}
		if a.Attempt != b.Attempt {
			return a.Attempt < b.Attempt
		}
		return a.Op < b.Op
	})
	return out
}

// Entries is how many entries were written in all.
func (l *Ledger) Entries() int { return l.entries }

// Runs maps each run to the (latest) attempt it moved in.
func (l *Ledger) Runs() map[string]int { return l.runs }

// Operators maps each run to the ARN of who ran it, as its OpRun entry
// said (runs written before operators were recorded are absent).
func (l *Ledger) Operators() map[string]string { return l.operators }

// Span is the time of the first and the last entry.
func (l *Ledger) Span() (first, last time.Time) { return l.first, l.last }

// Returned tells whether a DLQ message is one this journal sent somewhere
// in attempt (0: any attempt): its MessageId is a destination MessageId
// the journal holds (a digest: see Digest for what a collision costs).
func (l *Ledger) Returned(messageID string, attempt int) bool { return l.returned(messageID, attempt) }

// PayloadSentAt is the first send of a payload hash to a target in
// attempt (0: any attempt).
func (l *Ledger) PayloadSentAt(payloadSHA256 string, attempt int) (time.Time, bool) {
	return l.payloadSent(payloadSHA256, attempt)
}

// entryAttempt is the attempt of a journal entry: absent means 1 (journals
// written before attempts were numbered).
func entryAttempt(e Entry) int { return max(e.Attempt, 1) }
