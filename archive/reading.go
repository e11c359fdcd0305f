package archive

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/receipts"
)

// read receives until the backlog is seen, Max is written, the queue
// shows nothing new for QuietRounds receives, or SQS's in-flight limit
// stops it, writing as it goes; with Delete into a local file it
// checkpoints every Checkpoint messages and at the limit.
func read(ctx context.Context, h *handles, sink Sink, o Options) (Stats, error) {
	r := &reading{h: h, o: o, w: &member{sink: sink, gzip: o.Gzip}, room: o.room(), lost: receipts.Lost{Visibility: o.Visibility}}
	r.w.start()
	r.cp, _ = sink.(Checkpointer)
	if _, toS3 := sink.(*s3Sink); !o.Delete || toS3 {
		// An S3 sink stages in a local file (it has Checkpoint), but its
		// part is durable only once the object is uploaded and read back:
		// it deletes once, after that.
		r.cp = nil
	}
	if p, ok := sink.(*s3Parts); ok && o.Delete {
		r.parts = p
		if o.Queue.FIFO && o.RescueDir != "" {
			// A FIFO group shows nothing behind the ten messages held: the
			// part is staged durably and checkpointed at each such stall.
			if err := p.stageIn(o.RescueDir); err != nil {
				return Stats{}, err
			}
		}
	}
	for look := 0; ; look++ {
		if err := r.readOn(ctx); err != nil {
			return r.st, err
		}
		if !r.lookAgain(ctx, look) {
			break
		}
	}
	checkStalled(context.WithoutCancel(ctx), h, &r.st, o)
	if r.st.Interrupted && r.st.Deleted == 0 {
		return r.st, nil // nothing deleted: the file is thrown away
	}
	return r.st, r.w.end()
}

// readOn receives until the backlog is seen, Max is written, the queue
// shows nothing new for QuietRounds receives, the in-flight limit stops it
// or ctx is done. A receive that fails is tried again (maxFailedReceives
// in a row end the export) and remembered: it may have hidden messages.
func (r *reading) readOn(ctx context.Context) error {
	h, o := r.h, r.o
	for r.quiet < o.QuietRounds && r.st.Limit == "" {
		if (o.Max > 0 && r.st.Exported >= o.Max) || (o.Backlog > 0 && r.st.Received >= o.Backlog) {
			break
		}
		if ctx.Err() != nil {
			r.st.Interrupted = true
			break
		}
		// A receive is never cancelled: one cancelled after SQS answered
		// would leave its messages hidden for the visibility timeout.
		r.lost.Started(o.Clock.Now())
		msgs, err := receive(context.WithoutCancel(ctx), h.c, o)
		if err != nil && !isOverLimit(err) {
			// Dated by its end, not its start: the SDK's own retries (and
			// a slow server) carry out its last attempt later than it began.
			r.lost.Failed(o.Clock.Now(), err)
			if r.lost.Failures() > 0 {
				r.st.Hidden, r.st.HiddenUntil = r.lostBound(), r.lost.Visible()
			}
			if ctx.Err() != nil {
				r.st.Interrupted = true
				break
			}
			if !(awserr.Retryable(err) || receipts.MaybeCarriedOut(err)) || r.lost.Consecutive() >= maxFailedReceives {
				return fmt.Errorf("receive from %s: %w", o.Queue.Name, err)
			}
			continue
		}
		r.lost.Succeeded()
		if ctx.Err() != nil {
			r.st.Interrupted = true
			h.add(msgs) // received as Ctrl-C came: released with the rest
			break
		}
		if err := r.round(ctx, msgs, err); err != nil {
			return err
		}
		if o.Progress != nil {
			o.Progress(r.st)
		}
	}
	return nil
}

// reading is one export's reading loop.
type reading struct {
	h     *handles
	o     Options
	w     *member
	cp    Checkpointer // nil: no deletes before the end
	parts *s3Parts     // with Delete to S3: cut a part at the limit
	st    Stats
	room  int // messages this export may hold in flight
	since int // written since the last checkpoint
	quiet int // receives in a row with nothing new
	lost  receipts.Lost
}

// round takes one receive's answer: writes what is new, then checkpoints,
// stops at the in-flight limit, or counts a quiet round.
func (r *reading) round(ctx context.Context, msgs []types.Message, err error) error {
	overLimit := isOverLimit(err)
	fresh := r.h.add(msgs)
	before := r.st.Exported
	for i := range fresh {
		if err := r.st.take(r.w.out, r.h, &fresh[i], r.o); err != nil {
			return err
		}
	}
	r.since += r.st.Exported - before
	full := overLimit || r.h.count() >= r.room
	if r.parts != nil {
		r.parts.wrote(r.st.Exported - before)
	}
	stalled := r.parts != nil && r.since > 0 && !full && len(fresh) == 0 && r.stalled(ctx)
	switch {
	case stalled && r.parts.stage != "" && r.parts.pending < r.o.Checkpoint:
		// A FIFO group's lock, not the in-flight limit: the staged part is
		// made durable on local disk and exactly its messages so far are
		// deleted, which lets SQS hand out the group's next; the part is
		// uploaded once it holds Checkpoint messages (or at the end).
		if err := r.stageCheckpoint(ctx); err != nil {
			return err
		}
		r.since, r.quiet = 0, 0
	case r.parts != nil && r.since > 0 && (full || stalled):
		// SQS hands out no more while this export holds a part's worth:
		// the part is completed and read back, then exactly its messages
		// are deleted, which makes room for the next.
		if err := r.cutPart(ctx); err != nil {
			return err
		}
		r.since, r.quiet = 0, 0
	case r.cp != nil && r.since > 0 && (r.since >= r.o.Checkpoint || full || len(fresh) == 0):
		// A part is complete, or SQS hands out no more while this export
		// holds written messages (the in-flight limit, or a FIFO group's
		// head): the file so far is made durable before a message of it
		// is deleted, and the deletes make room.
		if err := checkpoint(ctx, r.w, r.cp, r.h, &r.st); err != nil {
			return err
		}
		r.since, r.quiet = 0, 0
	case full:
		r.st.Limit, r.st.Held = LimitHeld, r.h.count()
		if overLimit {
			r.st.Limit = LimitOverLimit
		}
	case len(fresh) == 0:
		r.quiet++
	default:
		r.quiet = 0
	}
	return nil
}
