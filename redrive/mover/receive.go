package mover

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/receipts"
	"github.com/mfdlq/mfdlq/redrive/journal"
	"github.com/mfdlq/mfdlq/redrive/retry"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// maxDeferrals is how many times one message may come back from a batch
// whose retries ran out before it counts as failed for this run.
const maxDeferrals = 3

// triaged is what one received batch turns into.
type triaged struct {
	send      []sqsjson.Message // selected, never sent to this destination
	resume    []sqsjson.Message // sent already: delete only
	resumeNew int               // how many of resume are counted for the first time
	release   []sqsjson.Message // made visible again at once, untouched
	park      []sqsjson.Message // seen again in this run: hidden for the rest of it
	skipped   []journal.Entry
	held      []string
}

// receive asks for up to n messages, long-polling wait seconds. A long
// poll runs in m.polls; cancelled is true when cancelIdlePolls ended it
// (no messages, no error: the worker asks again or stops).
func (m *Mover) receive(ctx context.Context, n int, wait int32) (msgs []types.Message, cancelled bool, err error) {
	callCtx := ctx
	if wait > 0 && m.polls != nil {
		callCtx = m.polls
	}
	var out *sqs.ReceiveMessageOutput
	err = m.o.Retry.Do(callCtx, func(ctx context.Context) error {
		var err error
		out, err = m.c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(m.o.Source.URL),
			MaxNumberOfMessages:         int32(n),
			VisibilityTimeout:           m.o.Visibility,
			WaitTimeSeconds:             wait,
			MessageSystemAttributeNames: m.attrs,
			MessageAttributeNames:       []string{"All"},
		}, retry.NoSDK)
		m.ctl.Call(0, err)
		if err != nil && ctx.Err() == nil {
			// Its answer may be lost after SQS hid a batch: dated by the
			// error, since SQS acted before it came back.
			m.lostReceive(m.o.Clock.Now(), err)
		}
		return err
	})
	if err != nil && callCtx != ctx && callCtx.Err() != nil && ctx.Err() == nil {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return out.Messages, false, nil
}

// handle moves one received batch up to its sends and returns its deletes
// (nil when there are none), which the worker's deleter runs while the
// next batch is sent. The sends' 'sent' entries are written before handle
// returns, so the deletes may run at any time after.
func (m *Mover) handle(ctx context.Context, raw []types.Message) func() {
	if m.o.Gate != nil {
		if err := m.o.Gate(); err != nil {
			m.mu.Lock()
			m.untriaged -= len(raw)
			m.mu.Unlock()
			m.fail(err)
			msgs := make([]sqsjson.Message, len(raw))
			for i := range raw {
				msgs[i] = sqsapi.FromSDK(raw[i])
			}
			m.release(msgs)
			return nil
		}
	}
	p := m.triage(raw)
	// The keys of the batch are held until its sends are journaled (the
	// 'sent' entries carry them) or it gives up on them.
	defer m.unclaimLocked(p.send)
	if len(p.skipped) > 0 {
		if err := m.o.Journal.Write(p.skipped...); err != nil {
			m.fail(err)
		}
	}
	m.release(p.release)
	m.hide(p.park, m.o.Visibility)
	waited := false
	if len(p.send) > 0 {
		t0 := m.o.Clock.Now()
		if err := m.waitRate(ctx, len(p.send)); err != nil {
			m.forget(p.send)
			m.unreserve(len(p.send))
			m.release(p.send)
			m.unhold(p.held)
			return nil
		}
		waited = receipts.Since(m.o.Clock, t0) > time.Millisecond
	}
	// The originals of the repaired copies are durable before any copy
	// is sent: the undo can always put them back.
	if !m.keepOriginals(p.send) {
		m.unreserve(len(p.send))
		m.release(p.send)
		m.unhold(p.held)
		return nil
	}
	// From here on the batch finishes even after Ctrl-C.
	ctx = context.WithoutCancel(ctx)
	sent := m.sendAll(ctx, p.send)
	m.ctl.Batch(len(raw), waited)
	if m.o.Keep {
		m.release(sent)
		m.unhold(p.held)
		return nil
	}
	return func() {
		m.deleteAll(ctx, append(sent, p.resume...), p.resumeNew)
		m.unhold(p.held)
	}
}

// triage sorts a received batch under the lock: it marks what is held,
// seen and returned, and reserves room under the bound for what to send.
func (m *Mover) triage(raw []types.Message) triaged {
	var p triaged
	var candidates []sqsjson.Message
	m.mu.Lock()
	m.stats.Hidden = 0 // receiving again: not waiting
	m.untriaged -= len(raw)
	m.wakeCovered()
	for _, r := range raw {
		msg := sqsapi.FromSDK(r)
		id := msg.MessageId
		if m.t.Hold(id, msg.ReceiptHandle) {
			// Another worker holds it and its visibility ran out: this
			// receive rotated the receipt handle, so its delete must use
			// this one (SQS ignores a delete with an older handle).
			continue
		}
		p.held = append(p.held, id)
		isNew := !m.t.IsSeen(id)
		beyond := isNew && m.o.Backlog > 0 && m.t.SeenCount() >= m.o.Backlog
		if isNew && !beyond {
			m.t.See(id)
			m.lastNew = m.o.Clock.Now()
		}
		dest, stay := m.route(&msg)
		var prog journal.Mark
		if dest != nil {
			prog = m.o.State.Of(id, dest.URL)
		}
		switch {
		case (prog.Op == journal.OpSent || prog.Op == journal.OpDeleted) && !m.o.Keep:
			// Sent already (by this run or an earlier one) and still
			// here: delete it with this receipt handle, every time it
			// shows up — an earlier delete may have used a stale handle.
			if m.t.Finish(id) {
				p.resumeNew++
			}
			p.resume = append(p.resume, msg)
		case m.t.IsDone(id) || beyond:
			// Decided on already in this run (skipped, failed, returned,
			// copied), or not part of the backlog: hide it for a while so
			// the receives reach the messages behind it.
			m.t.Finish(id)
			m.t.Park(id, msg.ReceiptHandle)
			p.park = append(p.park, msg)
		case IsReturn(m.o.State, &msg):
			m.t.Finish(id)
			m.stats.Returned++
			if m.o.MaxReturned > 0 && m.stats.Returned >= m.o.MaxReturned && m.stats.Halted == "" {
				m.stats.Halted = "circuit breaker: " + plural.Of(m.stats.Returned, "moved message") + " came back to the DLQ"
			}
			p.release = append(p.release, msg)
		case prog.Op == journal.OpSent || prog.Op == journal.OpDeleted: // --keep: copied already
			m.t.Finish(id)
			p.release = append(p.release, msg)
		case m.stats.Halted != "" || m.fatal != nil:
			p.release = append(p.release, msg)
		case dest == nil:
			m.stay(&p, msg, stay)
		default:
			candidates = append(candidates, msg)
		}
	}
	m.mu.Unlock()
	m.selectFrom(&p, candidates)
	return p
}

// selectFrom applies the selection outside the lock (a jq filter can be
// slow), then reserves room under the bound.
func (m *Mover) selectFrom(p *triaged, candidates []sqsjson.Message) {
	var picked, skipped, errored []sqsjson.Message
	var errs []string
	for i := range candidates {
		ok := true
		if m.o.Select != nil {
			var err error
			if ok, err = m.o.Select(&candidates[i]); err != nil {
				errored = append(errored, candidates[i])
				errs = append(errs, boundText(err.Error(), maxErrorText))
				continue
			}
		}
		if ok {
			picked = append(picked, candidates[i])
		} else {
			skipped = append(skipped, candidates[i])
		}
	}
	tried, order := len(picked), picked
	ds := m.decodePicked(picked)
	judged := m.judge(picked, ds)
	picked, tfailed := m.transformPicked(picked, ds)
	now := m.o.Clock.Now().UTC()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range skipped {
		m.t.Finish(msg.MessageId)
		m.stats.Skipped++
		p.skipped = append(p.skipped, journal.Entry{Time: now, Run: m.o.RunID, Attempt: m.o.Attempt, Op: journal.OpSkipped, DLQMessageID: msg.MessageId, BodySHA256: sqsjson.BodySHA256(msg.Body), DestQueue: m.destFor(msg.MessageId).URL})
	}
	p.release = append(p.release, skipped...)
	m.filterErrors(p, errored, errs, len(candidates), now)
	m.transformErrors(p, tfailed, tried, now)
	picked = m.holdBack(p, order, picked, tfailed)
	if m.stats.Halted != "" || m.fatal != nil {
		m.forget(picked)
		p.release = append(p.release, picked...)
		picked = nil
	}
	if m.o.EachMax > 0 {
		// A canary per destination: each destination's share moves, the
		// rest is hidden until this phase ends (unpark), not looked at again.
		kept := picked[:0]
		for _, msg := range picked {
			if m.overQuota(&msg) {
				m.forget([]sqsjson.Message{msg})
				m.t.Finish(msg.MessageId)
				m.t.Park(msg.MessageId, msg.ReceiptHandle)
				p.park = append(p.park, msg)
				continue
			}
			kept = append(kept, msg)
		}
		picked = kept
	}
	room := m.o.Max - m.stats.Handled() - m.reserved
	if room < len(picked) {
		room = max(room, 0)
		m.forget(picked[room:])
		p.release = append(p.release, picked[room:]...)
		picked = picked[:room]
	}
	// After the bound's cut: a duplicate is judged against the keys that
	// will be sent, never against one released for later.
	picked = m.dedupe(p, picked, judged, now)
	m.reserved += len(picked)
	p.send = picked
	if len(p.release) > 0 {
		m.letGo = true // before the polls may be cancelled: see cancelIdlePolls
	}
	m.cancelIdlePolls()
}

func (m *Mover) unhold(ids []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.unholdLocked(ids)
}

// unholdLocked is unhold with m.mu held.
func (m *Mover) unholdLocked(ids []string) {
	for _, id := range ids {
		m.t.LetGo(id)
		delete(m.dests, id)
	}
	if m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
}

func (m *Mover) unreserve(n int) {
	m.mu.Lock()
	m.reserved -= n
	m.mu.Unlock()
}

// release makes messages visible again at once and returns how many it
// could not: a message it misses becomes visible when its visibility
// timeout ends. It lets go of them first, so that a worker receiving one
// of them right after handles it rather than taking it for another
// worker's.
func (m *Mover) release(msgs []sqsjson.Message) int { return m.hide(msgs, 0) }

// hide sets the visibility timeout of msgs (0: visible again at once) and
// returns how many SQS did not confirm. A release SQS refuses for a
// message that is not in flight needs none; one it refuses for a receipt
// handle that is no longer the message's latest means a receive of this
// run whose answer was lost hid it again: it is visible when that
// receive's timeout ends, as after a call that failed.
func (m *Mover) hide(msgs []sqsjson.Message, seconds int32) (missed int) {
	if len(msgs) == 0 {
		return 0 // and no wake-up of workers waiting for a change
	}
	m.mu.Lock()
	m.letGo = true // a cancelled long poll could take these: see cancelIdlePolls
	m.mu.Unlock()
	ids := make([]string, len(msgs))
	held := make([]receipts.Message, len(msgs))
	for i := range msgs {
		ids[i] = msgs[i].MessageId
		held[i] = receipts.Message{ID: msgs[i].MessageId, Handle: m.handleOf(&msgs[i])}
	}
	m.unhold(ids)
	missed = len(receipts.SetVisibility(context.Background(), m.c, m.o.Source.URL, held, seconds, m.o.Retry.Do, retry.NoSDK))
	if missed > 0 && seconds == 0 {
		// Not released: hidden until their visibility timeout ends.
		m.mu.Lock()
		m.strayed(m.o.Clock.Now().Add(m.visibility()))
		m.mu.Unlock()
	}
	return missed
}

// depth reads a queue's approximate counts.
func (m *Mover) depth(ctx context.Context, url string) (sqsapi.Depth, error) {
	var out *sqs.GetQueueAttributesOutput
	err := m.o.Retry.Do(ctx, func(ctx context.Context) error {
		var err error
		out, err = m.c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: aws.String(url),
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages,
				types.QueueAttributeNameApproximateNumberOfMessagesNotVisible, types.QueueAttributeNameApproximateNumberOfMessagesDelayed},
		}, retry.NoSDK)
		return err
	})
	if err != nil {
		return sqsapi.Depth{}, err
	}
	return sqsapi.DepthFrom(out.Attributes), nil
}

// backlogCache keeps the destination's depth for two seconds.
type backlogCache struct {
	at      time.Time
	visible int64
}

// waitBacklog holds the worker while the destination has more than
// MaxBacklog visible messages: its consumer is behind, pushing harder
// would only grow the pile.
func (m *Mover) waitBacklog(ctx context.Context) error {
	if m.o.MaxBacklog <= 0 {
		return nil
	}
	for {
		m.mu.Lock()
		fresh := receipts.Since(m.o.Clock, m.backlog.at) < 2*time.Second
		visible := m.backlog.visible
		m.mu.Unlock()
		if !fresh {
			var err error
			if visible, err = m.destVisible(ctx); err != nil {
				return nil // cannot tell: do not stall the move on it
			}
			m.mu.Lock()
			m.backlog = backlogCache{at: m.o.Clock.Now(), visible: visible}
			m.mu.Unlock()
		}
		if visible <= m.o.MaxBacklog {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.o.Clock.After(2 * time.Second):
		}
	}
}

// IsReturn tells whether m, seen in the DLQ, is a message this attempt
// moved that came back: by its MessageId after a move to a queue, by its
// payload after a move to a target — when it reached the DLQ after that
// send. A message already in the DLQ before the send with the same payload
// (a duplicate) is not a return. Without a SentTimestamp it counts as
// returned: a breaker that trips too early is safer than one that never
// does.
func IsReturn(st *journal.State, m *sqsjson.Message) bool {
	if st.IsReturned(m.MessageId) {
		return true
	}
	if first, ok := st.FirstPayloadSent(); !ok || !envelope.ArrivedAfter(m, first) {
		return false // here before every payload send: no hash needed
	}
	at, ok := st.PayloadSent(func() string { return envelope.PayloadSHA256(m) })
	return ok && envelope.ArrivedAfter(m, at)
}
