package journal

import (
	"crypto/sha256"
	"encoding/binary"
)

// digest is the 64-bit digest of a MessageId that the compacted journal
// keeps instead of the MessageId itself: 8 bytes a message, where the
// journal's lines cost about 280. It is the first 8 bytes of the id's
// SHA-256, so it is the same in every process and a file whose MessageIds
// someone chose cannot aim collisions at it cheaply. It is never 0 (the
// empty slot of an idSet).
//
// Two different ids share a digest with a probability of about n²/2⁶⁵
// among n ids (3·10⁻⁸ for a million, 3·10⁻⁶ for ten million). Every use of
// a digest is arranged so that such a collision keeps a message in the DLQ
// (or counts a foreign message as returned, which fails verify): a digest
// never decides that a message may be deleted without being sent.
func digest(id string) uint64 {
	sum := sha256.Sum256([]byte(id))
	d := binary.LittleEndian.Uint64(sum[:8])
	if d == 0 {
		d = 1
	}
	return d
}

// idSet is a set of digests: open addressing with linear probing, 8 bytes
// a slot, at most three quarters full. A Go map of uint64 costs about
// three times as much per entry.
type idSet struct {
	slots []uint64
	n     int
}

func newIDSet(hint int) *idSet {
	size := 16
	for size*3/4 < hint {
		size *= 2
	}
	return &idSet{slots: make([]uint64, size)}
}

// Len is how many digests the set holds.
func (s *idSet) Len() int { return s.n }

// add inserts d and tells whether it was new.
func (s *idSet) add(d uint64) bool {
	if (s.n+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := mix(d) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = d
			s.n++
			return true
		case d:
			return false
		}
	}
}

func (s *idSet) has(d uint64) bool {
	if s == nil || s.n == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := mix(d) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			return false
		case d:
			return true
		}
	}
}

// Contains tells whether id's digest is in the set.
func (s *idSet) Contains(id string) bool { return s.has(digest(id)) }

func (s *idSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(len(old)*2, 16))
	s.n = 0
	for _, d := range old {
		if d != 0 {
			s.add(d)
		}
	}
}

// each calls f for every digest, in slot order.
func (s *idSet) each(f func(uint64)) {
	for _, d := range s.slots {
		if d != 0 {
			f(d)
		}
	}
}

// mix spreads a digest over the slots; SHA-256 digests are uniform
// already, but the in-run sets (flagSet) take maphash values and tests
// take small numbers.
func mix(d uint64) uint64 {
	d ^= d >> 33
	d *= 0xff51afd7ed558ccd
	d ^= d >> 33
	return d
}
