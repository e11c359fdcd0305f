package dedupe

// digestSet is a set of 64-bit digests (never 0): open addressing with
// linear probing, 8 bytes a slot, at most three quarters full — about 11
// to 21 bytes a digest, where a Go map of uint64 costs about 40.
type digestSet struct {
	slots []uint64
	n     int
}

func newDigestSet() digestSet { return digestSet{slots: make([]uint64, 16)} }

func (s *digestSet) len() int { return s.n }

// add inserts d and tells whether it was new.
func (s *digestSet) add(d uint64) bool {
	if (s.n+1)*4 > len(s.slots)*3 {
		old := s.slots
		s.slots, s.n = make([]uint64, len(old)*2), 0
		for _, o := range old {
			if o != 0 {
				s.add(o)
			}
		}
	}
	mask := uint64(len(s.slots) - 1)
	for i := d & mask; ; i = (i + 1) & mask {
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
