package receipts

import (
	"hash/maphash"
	"sort"
)

// State is where a message is in one run (see the package's words).
type State uint8

// The states of a message, in the order a run moves it through them.
const (
	// Unseen: never received in this run.
	Unseen State = iota
	// Seen: received, and let go of; only its digest is kept.
	Seen
	// Held: received and not let go of; its latest handle is kept.
	Held
	// Parked: hidden on purpose until the run ends, when it is released.
	Parked
	// Deleting: held, its delete under way (SQS may have removed it).
	Deleting
	// Done: decided on in this run (moved, skipped, failed, written).
	Done
)

// Message is a message the table keeps a handle for.
type Message struct {
	ID, Handle string
}

// entry is what the table keeps of a held, parked or owed message.
// It is kept by value: a pointer each would be an allocation for every
// message received, garbage once it is let go of.
type entry struct {
	handle string
	seq    uint64 // receive order
	fails  int32  // delete failures while owed
	state  State
	owed   bool
	taken  bool // taken by the reader (written to the file): deleted at a checkpoint
}

// Table is the state of every message of one run. It is not safe for
// concurrent use: its caller holds its own lock around each use, since a
// decision usually reads and changes several messages at once.
//
// Seen and Done are flags on a 62-bit digest of the MessageId (digests);
// Held, Parked, Deleting and owed messages keep their id and handle too
// (live). Two ids share a digest with a probability of about n²/2⁶³
// among n (10⁻⁷ for a million). A false "seen" only counts a new message
// as read already (one receive more); a false "done" takes a new message
// for one decided on, which is then held or parked to the end and left
// in the queue — never sent, deleted or lost.
type Table struct {
	digests digestSet
	live    map[string]entry
	seq     uint64
	held    int // Held and Deleting
	parked  int
	owed    int
	delete  int // Deleting
	epoch   int // deletes started
}

// NewTable returns a table sized for about hint messages.
func NewTable(hint int) *Table {
	return &Table{digests: newDigestSet(min(max(hint, 0), 1<<24)), live: map[string]entry{}}
}

// See marks id seen and tells whether it was new.
func (t *Table) See(id string) bool { return t.digests.set(id, flagSeen) }

// IsSeen tells whether id was received in this run.
func (t *Table) IsSeen(id string) bool { return t.digests.is(id, flagSeen) }

// SeenCount is how many distinct messages were seen.
func (t *Table) SeenCount() int { return t.digests.count[flagSeen] }

// Finish marks id done (decided on in this run) and tells whether it was
// not already.
func (t *Table) Finish(id string) bool { return t.digests.set(id, flagDone) }

// IsDone tells whether id was decided on in this run.
func (t *Table) IsDone(id string) bool { return t.digests.is(id, flagDone) }

// Hold records that a receive returned id with handle. When id was held
// already (by another worker, or by the reader since an earlier receive)
// its handle is replaced by this one, the latest, and Hold returns true:
// SQS ignores a delete or release with an older handle.
func (t *Table) Hold(id, handle string) (already bool) {
	e := t.live[id]
	if e.state == Held || e.state == Deleting {
		e.handle = handle
		t.live[id] = e
		return true
	}
	if e.state == Parked {
		t.parked--
	}
	t.seq++
	e.state, e.handle, e.seq = Held, handle, t.seq
	t.live[id] = e
	t.held++
	return false
}

// Handle is id's latest receipt handle, or "" when the table keeps none.
func (t *Table) Handle(id string) string {
	return t.live[id].handle
}

// LetGo drops id's hold (released, deleted, or handed on): a parked
// message stays parked, an owed one owed.
func (t *Table) LetGo(id string) {
	e, ok := t.live[id]
	if !ok || e.state == Parked {
		return
	}
	t.leave(id, e)
}

// leave takes e out of its state, keeping it only while it is owed.
func (t *Table) leave(id string, e entry) {
	switch e.state {
	case Held:
		t.held--
	case Deleting:
		t.held--
		t.delete--
	case Parked:
		t.parked--
	}
	e.state, e.handle, e.taken = Seen, "", false
	if !e.owed {
		delete(t.live, id)
		return
	}
	t.live[id] = e
}

// Park keeps id hidden until the run ends (TakeParked), with handle.
func (t *Table) Park(id, handle string) {
	e := t.live[id]
	switch e.state {
	case Parked:
		e.handle = handle
		t.live[id] = e
		return
	case Held:
		t.held--
	case Deleting:
		t.held--
		t.delete--
	}
	e.state, e.handle = Parked, handle
	t.live[id] = e
	t.parked++
}

// TakeParked returns every parked message with its handle and lets go of
// them: the caller releases them.
func (t *Table) TakeParked() []Message {
	var out []Message
	for id, e := range t.live {
		if e.state == Parked {
			out = append(out, Message{ID: id, Handle: e.handle})
			t.leave(id, e)
		}
	}
	return out
}

// StartDelete marks the held ids as being deleted and returns the count
// of deletes started so far, this one included: a count of the queue
// read while it changed may still include messages SQS removed.
func (t *Table) StartDelete(ids []string) int {
	for _, id := range ids {
		if e := t.live[id]; e.state == Held {
			e.state = Deleting
			t.live[id] = e
			t.delete++
		}
	}
	t.epoch++
	return t.epoch
}

// Epoch is the count of deletes started so far.
func (t *Table) Epoch() int { return t.epoch }

// Owe notes id let go of unfinished: it must come back (a send that ran
// out of retries, a delete that failed, counted by deleteFailed). After
// maxFails failed deletes the run stops waiting for it: Owe forgets it and
// returns false.
func (t *Table) Owe(id string, deleteFailed bool, maxFails int) bool {
	e, ok := t.live[id]
	if !ok {
		e.state = Seen
	}
	if deleteFailed {
		e.fails++
	}
	if int(e.fails) >= maxFails {
		if ok {
			t.unowe(id, e)
		}
		return false
	}
	if !e.owed {
		e.owed = true
		t.owed++
	}
	t.live[id] = e
	return true
}

// Pay notes an owed id done with and returns whether it was owed and its
// failed deletes.
func (t *Table) Pay(id string) (owed bool, fails int) {
	e := t.live[id]
	if !e.owed {
		return false, 0
	}
	t.unowe(id, e)
	return true, int(e.fails)
}

func (t *Table) unowe(id string, e entry) {
	if e.owed {
		t.owed--
	}
	e.owed, e.fails = false, 0
	if e.state == Seen {
		delete(t.live, id)
		return
	}
	t.live[id] = e
}

// Take marks a held id taken (the reader wrote it): TakenHandles lists it
// for deletion.
func (t *Table) Take(id string) {
	if e := t.live[id]; e.state == Held {
		e.taken = true
		t.live[id] = e
	}
}

// HeldMessages returns the held messages, taken ones only if taken, in
// the order they were first received.
func (t *Table) HeldMessages(taken bool) []Message {
	type seqMsg struct {
		seq uint64
		m   Message
	}
	var all []seqMsg
	for id, e := range t.live {
		if (e.state == Held || e.state == Deleting) && (!taken || e.taken) {
			all = append(all, seqMsg{e.seq, Message{ID: id, Handle: e.handle}})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	out := make([]Message, len(all))
	for i := range all {
		out[i] = all[i].m
	}
	return out
}

// Counts of the live states.
func (t *Table) Held() int     { return t.held }
func (t *Table) Parked() int   { return t.parked }
func (t *Table) Owed() int     { return t.owed }
func (t *Table) Deleting() int { return t.delete }

// digestSet is an open-addressing table of 62-bit digests with two flags
// each, 8 bytes a slot, at most three quarters full: 16 MiB for a million
// ids, where maps of strings took about 200. It holds no pointers, so the
// collector does not scan it.
type digestSet struct {
	slots []uint64
	used  int
	count [4]int // ids per flag
	seed  maphash.Seed
}

// The flags of a digest slot.
const (
	flagSeen = 1
	flagDone = 2
	flagMask = 3
)

func newDigestSet(hint int) digestSet {
	size := 16
	for size*3/4 < hint {
		size *= 2
	}
	return digestSet{slots: make([]uint64, size), seed: maphash.MakeSeed()}
}

func (r *digestSet) key(id string) uint64 {
	d := maphash.String(r.seed, id) &^ flagMask
	if d == 0 {
		d = 4
	}
	return d
}

// find returns the slot of key, or of the empty slot where it goes.
func (r *digestSet) find(key uint64) int {
	mask := uint64(len(r.slots) - 1)
	for i := spread(key) & mask; ; i = (i + 1) & mask {
		if s := r.slots[i]; s == 0 || s&^flagMask == key {
			return int(i)
		}
	}
}

// set gives id the flag and tells whether it lacked it.
func (r *digestSet) set(id string, flag uint64) bool {
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

func (r *digestSet) is(id string, flag uint64) bool {
	return r.slots[r.find(r.key(id))]&flag != 0
}

func (r *digestSet) grow() {
	old := r.slots
	r.slots = make([]uint64, len(old)*2)
	for _, s := range old {
		if s != 0 {
			r.slots[r.find(s&^flagMask)] = s
		}
	}
}

// spread mixes a key's bits into the low ones that pick its slot (the
// keys' own low bits hold the flags).
func spread(d uint64) uint64 {
	d ^= d >> 33
	d *= 0xff51afd7ed558ccd
	d ^= d >> 33
	return d
}
