package dedupe

import (
	"sync"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// Claims is one redrive's dedupe: the keys in flight (picked, their send
// not journaled yet) and the messages it left in the DLQ as duplicates or
// moved without a key, counted once each across the canary and the rest.
// The keys moved are not here: each send's journal entry carries its key's
// digest (journal.Entry.Key), so the journal's fold knows the keys this run
// and every earlier one moved, and a resumed run never moves a second copy
// of one. Memory: the keys in flight (at most a batch per worker), and one
// 8-byte digest per duplicate or keyless message (counted sets).
//
// One Claims is shared by the canary and the rest of a run: a message the
// canary moved is the first of its key.
type Claims struct {
	// Key is the --key expression.
	Key *Key

	mu       sync.Mutex
	inflight map[claim]string // (destination, key digest) → the MessageId holding it
	dups     digestSet        // DLQ MessageIds left as duplicates
	keyless  digestSet        // DLQ MessageIds moved without a key
	reasons  []string
	examples []Example
}

type claim struct {
	dest string
	key  uint64
}

// Example is one duplicate left in the DLQ: its MessageId and its key,
// both as they came (the report redacts and encodes them).
type Example struct {
	MessageID string `json:"message_id"`
	Key       string `json:"key"`
}

// maxExamples is how many duplicates the figures name.
const maxExamples = 3

// NewClaims starts the dedupe of one run.
func NewClaims(k *Key) *Claims {
	return &Claims{Key: k, inflight: map[claim]string{}, dups: newDigestSet(), keyless: newDigestSet()}
}

// Judged is the key of one picked message: Digest is 0 when it has none
// (NoKey says why).
type Judged struct {
	Key    string
	Digest uint64
	NoKey  string
}

// Judge evaluates m's key, in and err being its payload as the caller
// decoded it (Key.OfDecoded: the redrive mover reads each message once
// for --key and --transform); it may run outside any lock (a jq
// expression can be slow).
func (c *Claims) Judge(m *sqsjson.Message, in any, err error) Judged {
	return judged(c.Key.OfDecoded(m, in, err))
}

func judged(key string, err error) Judged {
	if err != nil {
		return Judged{NoKey: err.(*NoKey).Reason}
	}
	return Judged{Key: key, Digest: Digest(key)}
}

// Claim decides whether message id, whose key is j, may move to dest: it
// may unless another message of its key is in flight to dest or taken
// says one was moved there (the journal: this run or an earlier one). A
// message without a key always may (its own; counted). On true the key is
// held for id until Release.
func (c *Claims) Claim(dest, id string, j Judged, taken func(uint64) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if j.Digest == 0 {
		if c.keyless.add(Digest(id)) && len(c.reasons) < maxNoKeyReasons && !contains(c.reasons, j.NoKey) {
			c.reasons = append(c.reasons, j.NoKey)
		}
		return true
	}
	k := claim{dest, j.Digest}
	if holder, ok := c.inflight[k]; ok {
		return holder == id
	}
	if taken(j.Digest) {
		return false
	}
	c.inflight[k] = id
	return true
}

// Release lets go of the key id holds for dest: its send is journaled
// (the journal knows the key from then on) or it will not be sent now.
func (c *Claims) Release(dest, id string, j Judged) {
	if j.Digest == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := claim{dest, j.Digest}
	if c.inflight[k] == id {
		delete(c.inflight, k)
	}
}

// Left records id as a duplicate left in the DLQ and tells whether it is
// the first time (the caller journals it once: the rest of a run sees the
// canary's duplicates again).
func (c *Claims) Left(id string, j Judged) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dups.add(Digest(id)) {
		return false
	}
	if len(c.examples) < maxExamples {
		c.examples = append(c.examples, Example{MessageID: id, Key: j.Key})
	}
	return true
}

// Counts are the duplicates left, the messages moved without a key, the
// first reasons for that and the first duplicates.
func (c *Claims) Counts() (duplicates, noKey int, reasons []string, examples []Example) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dups.len(), c.keyless.len(), append([]string(nil), c.reasons...), append([]Example(nil), c.examples...)
}
