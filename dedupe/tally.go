package dedupe

import (
	"sort"

	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Tally bounds: the keys shown with their text and examples, and the
// examples per key. Every key is counted (an 8-byte digest in a set, and a
// count only for a key seen twice), so the figures are exact at any
// backlog — about 16 bytes a key at a million; only the detail is bounded.
const (
	// MaxTracked is how many duplicated keys keep their text and examples;
	// past it a key with more copies than the least of them takes its
	// place, so the top keys are the most-copied ones.
	MaxTracked = 1000
	// MaxExamples is how many MessageIds a key keeps.
	MaxExamples = 3
	// maxNoKeyReasons is how many distinct reasons for "no key" are kept.
	maxNoKeyReasons = 3
)

// Tally counts the messages that share a key. The zero value is not
// usable: NewTally.
type Tally struct {
	key      *Key
	seen     digestSet         // every key's digest
	counts   map[uint64]uint32 // the keys seen more than once
	tracked  map[uint64]*Dup
	messages int
	noKey    int
	reasons  []string
}

// Dup is one key shared by several messages: its text (sanitised and
// shortened for a terminal), how many messages carry it, and the
// MessageIds of its first duplicates — the copies after the first, what
// redrive --dedupe would leave (the first is known only by its key's
// digest until a second comes: no MessageId is kept for a key seen once).
type Dup struct {
	Key        string   `json:"key"`
	Messages   int      `json:"messages"`
	MessageIDs []string `json:"message_ids"`
}

// NewTally starts a tally of k's keys.
func NewTally(k *Key) *Tally {
	return &Tally{key: k, seen: newDigestSet(), counts: map[uint64]uint32{}, tracked: map[uint64]*Dup{}}
}

// Add counts one message (call it once per distinct message).
func (t *Tally) Add(m *sqsjson.Message) {
	t.messages++
	key, err := t.key.Of(m)
	if err != nil {
		t.noKey++
		if r := err.(*NoKey).Reason; len(t.reasons) < maxNoKeyReasons && !contains(t.reasons, r) {
			t.reasons = append(t.reasons, r)
		}
		return
	}
	d := Digest(key)
	if t.seen.add(d) {
		return
	}
	n := max(t.counts[d], 1) + 1
	t.counts[d] = n
	dup := t.tracked[d]
	if dup == nil {
		if !t.makeRoom(int(n)) {
			return
		}
		dup = &Dup{Key: untrusted.Shorten(untrusted.Cell(key), MaxKey)}
		t.tracked[d] = dup
	}
	dup.Messages = int(n)
	if len(dup.MessageIDs) < MaxExamples {
		dup.MessageIDs = append(dup.MessageIDs, untrusted.Cell(m.MessageId))
	}
}

// makeRoom tells whether a key now counting n may be tracked, evicting
// the least-copied tracked key when the table is full and n is more.
func (t *Tally) makeRoom(n int) bool {
	if len(t.tracked) < MaxTracked {
		return true
	}
	var least uint64
	min := int(^uint(0) >> 1)
	for d, dup := range t.tracked {
		if dup.Messages < min {
			least, min = d, dup.Messages
		}
	}
	if n <= min {
		return false
	}
	delete(t.tracked, least)
	return true
}

// Summary is what a tally found.
type Summary struct {
	// Expr is the key expression.
	Expr string `json:"key"`
	// Messages were looked at; Keys are the distinct keys among them;
	// Duplicates are the messages that share a key with an earlier one
	// (what --dedupe would leave in the DLQ); NoKey have none (their own).
	Messages   int `json:"messages"`
	Keys       int `json:"keys"`
	Duplicated int `json:"duplicated_keys"`
	Duplicates int `json:"duplicates"`
	NoKey      int `json:"no_key"`
	// NoKeyReasons are the first distinct reasons, sanitised.
	NoKeyReasons []string `json:"no_key_reasons"`
	// Top are the most-copied keys, most first (at most the n asked for).
	Top []Dup `json:"top"`
}

// Summary returns the counts and the n most-copied keys.
func (t *Tally) Summary(n int) Summary {
	s := Summary{Expr: t.key.Expr, Messages: t.messages, Keys: t.seen.len(), NoKey: t.noKey, NoKeyReasons: []string{}, Top: []Dup{}}
	for _, c := range t.counts {
		s.Duplicated++
		s.Duplicates += int(c) - 1
	}
	for _, r := range t.reasons {
		s.NoKeyReasons = append(s.NoKeyReasons, untrusted.Shorten(untrusted.Cell(r), 200))
	}
	for _, d := range t.tracked {
		s.Top = append(s.Top, *d)
	}
	sort.Slice(s.Top, func(i, j int) bool {
		if s.Top[i].Messages != s.Top[j].Messages {
			return s.Top[i].Messages > s.Top[j].Messages
		}
		return s.Top[i].Key < s.Top[j].Key
	})
	if len(s.Top) > n {
		s.Top = s.Top[:n]
	}
	return s
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
