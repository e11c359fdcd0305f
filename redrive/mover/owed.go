package mover

import (
	"fmt"
	"time"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/receipts"
)

// The messages a run must not forget when it decides the DLQ is drained:
// those it saw and let go of unfinished (owed), and those a lost answer
// may have hidden from it (mayReappear). A run that ends with either left
// says so (countUnsent, PendingDelete, countUnseen): never a silent
// success with messages of its backlog still in the DLQ.

// visibility is how long a receive of this run hides a message.
func (m *Mover) visibility() time.Duration { return time.Duration(m.o.Visibility) * time.Second }

// mayReappear is when the last message this run may have hidden
// without holding it shows again: a receive whose answer was lost, a
// release that failed (m.lost), a message owed (m.owedUntil). The quiet
// wait counts from it. m.mu is held.
func (m *Mover) mayReappear() time.Time { return receipts.Later(m.lost.Until(), m.owedUntil) }

// lostReceive notes a receive attempt that failed with err, its error
// back at t: SQS may have carried it out before (a dropped connection, a
// 5xx after the fact, receipts.MaybeCarriedOut) and hidden up to a batch
// that no worker holds, until t plus the visibility timeout at the latest.
func (m *Mover) lostReceive(t time.Time, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lost.Failed(t, err)
}

// strayed notes that a message no one holds may stay hidden until t: an
// unconfirmed release. m.mu is held.
func (m *Mover) strayed(t time.Time) { m.lost.Stray(t) }

// owe notes a message let go of unfinished: its send ran out of retries
// (it was released) or, with deleteFailed, its delete failed (it stays
// hidden for up to the visibility timeout). Until it comes back and is
// sent, failed or deleted, the DLQ is not drained: a drain already decided
// is taken back, and the quiet wait counts from now. After maxDeferrals
// failed deletes of one message the run stops waiting for it: it stays
// counted as PendingDelete, for the next run.
func (m *Mover) owe(id string, deleteFailed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.t.Owe(id, deleteFailed, maxDeferrals) {
		return
	}
	m.drained = false
	m.owedUntil = receipts.Later(m.owedUntil, m.o.Clock.Now().Add(m.visibility()))
}

// paid notes a message owed that is done with: sent, failed, or deleted
// (then it is no longer pending delete). m.mu is held.
func (m *Mover) paid(id string, deleted bool) {
	if owed, fails := m.t.Pay(id); owed && deleted && fails > 0 {
		m.stats.PendingDelete--
	}
}

// noteUnseen keeps, when the quiet wait runs out, how many of the
// messages the DLQ holds beyond this run's (excess) can be of its backlog
// and were never received: hidden by a lost receive or by another
// consumer. m.mu is held.
func (m *Mover) noteUnseen(excess int64) {
	m.unseen = 0
	if m.o.Backlog > 0 && excess > 0 {
		m.unseen = int(min(excess, int64(max(m.o.Backlog-m.t.SeenCount(), 0))))
	}
}

// countUnseen counts as failed the messages of the backlog that stayed
// hidden for the whole wait: they are in the DLQ, the run did not move
// them, and the next run may.
func (m *Mover) countUnseen() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unseen == 0 || !m.drained {
		return
	}
	m.stats.Failed += m.unseen
	m.stats.Unseen = m.unseen
	m.stats.LastError = fmt.Sprintf("%s of the backlog stayed hidden in %s for the whole wait (a receive answer lost, or another consumer holds them): run the same command again",
		plural.Of(m.unseen, "message"), m.o.Source.Name)
}
