package mover

import "hash/maphash"

// runSet is the set of MessageIds the mover keeps for one run, as 62-bit
// digests with two flags each — seen (looked at, toward the backlog) and
// noted (decided on: moved, skipped, failed, returned) — in one table of
// 8 bytes a slot, at most three quarters full: 16 MiB for a million
// messages, where two maps of strings took about 200.
//
// A digest is a hash with a per-process seed; two ids share one with a
// probability of about n²/2⁶³ among n ids (10⁻⁷ for a million). What a
// false "yes" costs, by flag: seen — a new message is not counted toward
// the backlog, so the run may read one receive more; noted — a new
// message is taken for one decided on already in this run and is hidden
// until the run ends, then left in the DLQ for the next run. Neither
// sends, deletes or loses a message.
type runSet struct {
	slots []uint64
	used  int
	count [4]int // ids per flag
	seed  maphash.Seed
}

// The flags of a runSet slot.
const (
	flagSeen  = 1
	flagNoted = 2
	flagMask  = 3
)

func newRunSet(hint int) *runSet {
	size := 16
	for size*3/4 < hint {
		size *= 2
	}
	return &runSet{slots: make([]uint64, size), seed: maphash.MakeSeed()}
}

func (r *runSet) key(id string) uint64 {
	d := maphash.String(r.seed, id) &^ flagMask
	if d == 0 {
		d = 4
	}
	return d
}

// find returns the slot of key, or of the empty slot where it goes.
func (r *runSet) find(key uint64) int {
	mask := uint64(len(r.slots) - 1)
	for i := spread(key) & mask; ; i = (i + 1) & mask {
		if s := r.slots[i]; s == 0 || s&^flagMask == key {
			return int(i)
		}
	}
}

// set gives id the flag and tells whether it lacked it.
func (r *runSet) set(id string, flag uint64) bool {
	if (r.used+1)*4 > len(r.slots)*3 {
		r.grow()
	}
	key := r.key(id)
	i := r.find(key)
	s := r.slots[i]
	if s == 0 {
		r.used++
		s = key
	}
	if s&flag != 0 {
		return false
	}
	r.slots[i] = s | flag
	r.count[flag]++
	return true
}

func (r *runSet) is(id string, flag uint64) bool {
	return r.slots[r.find(r.key(id))]&flag != 0
}

func (r *runSet) grow() {
	old := r.slots
	r.slots = make([]uint64, len(old)*2)
	for _, s := range old {
		if s != 0 {
			r.slots[r.find(s&^flagMask)] = s
		}
	}
}

// seenSet and notedSet are the two views the mover uses.
type (
	seenSet  struct{ r *runSet }
	notedSet struct{ r *runSet }
)

func (s seenSet) add(id string) bool  { return s.r.set(id, flagSeen) }
func (s seenSet) has(id string) bool  { return s.r.is(id, flagSeen) }
func (s seenSet) Len() int            { return s.r.count[flagSeen] }
func (s notedSet) add(id string) bool { return s.r.set(id, flagNoted) }
func (s notedSet) has(id string) bool { return s.r.is(id, flagNoted) }

// MemoryLimit is the Go heap's soft limit for a move of backlog messages:
// 48 MiB for the SDK, the HTTP connections and the batches in flight, plus
// 48 bytes a message for what grows with the backlog — the run's digests
// (runSet: 8 to 16 bytes), the journal's (8 to 16, 24 while its table
// doubles): a rerun that finds nothing reads a million digests under a
// 48 MiB heap (60.6 MiB RSS measured). Below the limit the collector runs rarely
// (GOGC=400); near it, as often as it must. The digests hold no pointers,
// so the collector does not scan them.
func MemoryLimit(backlog int) int64 {
	return 48<<20 + 48*int64(max(backlog, 0))
}

// spread mixes a key's bits into the low ones that pick its slot (the
// keys' own low bits hold the flags).
func spread(d uint64) uint64 {
	d ^= d >> 33
	d *= 0xff51afd7ed558ccd
	d ^= d >> 33
	return d
}
