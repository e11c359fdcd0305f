package archive

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// DefaultInFlightLimit is how many messages SQS lets a queue have in
// flight (received, neither deleted nor visible again): about 120,000 on
// a standard queue and 120,000 on a FIFO queue, per the SQS Developer
// Guide's quotas pages (an account may have it raised through AWS
// Support). Past it a long-poll receive comes back empty with no error,
// and a short poll on a standard queue gets OverLimit.
const DefaultInFlightLimit = 120_000

// Why an export stopped at the in-flight limit (Stats.Limit).
const (
	// LimitHeld: the export holds as many messages as the queue may have
	// in flight, less those others held at the start.
	LimitHeld = "held"
	// LimitOverLimit: a receive got SQS's OverLimit error.
	LimitOverLimit = "over_limit"
	// LimitEmpty: receives came back empty while messages stayed visible,
	// what SQS does on a long poll at the limit.
	LimitEmpty = "empty_receives"
)

// room is how many messages this export may hold in flight: the limit
// less what others held when it started.
func (o Options) room() int {
	limit := o.InFlightLimit
	if limit <= 0 {
		limit = DefaultInFlightLimit
	}
	if o.Queue == nil {
		return limit
	}
	return limit - int(o.Queue.Depth.InFlight)
}

// isOverLimit tells SQS's OverLimit apart from other failures of a
// receive: it is the in-flight limit, not a fault.
func isOverLimit(err error) bool {
	var ol *types.OverLimit
	return errors.As(err, &ol)
}

// StoppedAtLimit tells whether the export ended at the in-flight limit
// with messages left unread.
func (st Stats) StoppedAtLimit() bool { return st.Limit != "" }

// checkStalled runs when the reading ended on empty receives short of the
// backlog while the export holds messages: if SQS still shows messages
// visible, a long poll returning none is the in-flight limit (a FIFO
// queue's held group heads look the same, so FIFO is left to its own
// warning). One GetQueueAttributes call; a failed one concludes nothing.
func checkStalled(ctx context.Context, h *handles, st *Stats, o Options) {
	if st.Limit != "" || st.Interrupted || o.Queue.FIFO || o.Backlog <= 0 || st.Received >= o.Backlog ||
		(o.Max > 0 && st.Exported >= o.Max) || h.count() == 0 {
		return
	}
	if visible := visibleLeft(ctx, h.c, o.Queue.URL); visible > 0 {
		st.Limit, st.Held, st.VisibleLeft = LimitEmpty, h.count(), visible
	}
}

// visibleLeft is how many messages SQS shows visible in the queue; 0 when
// it cannot tell. One GetQueueAttributes call.
func visibleLeft(ctx context.Context, c SQS, url string) int {
	out, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil {
		return 0
	}
	visible, err := strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)])
	if err != nil {
		return 0
	}
	return visible
}

// stalled tells, on an empty receive while this export holds a part's
// messages, whether SQS still shows messages visible: the in-flight limit
// (or a FIFO group's held head), not the end of the queue.
func (r *reading) stalled(ctx context.Context) bool {
	return visibleLeft(context.WithoutCancel(ctx), r.h.c, r.o.Queue.URL) > 0
}

// cutPart ends the part's gzip stream, completes the part (uploaded and
// read back) and only then deletes exactly its messages.
func (r *reading) cutPart(ctx context.Context) error {
	if err := r.w.end(); err != nil {
		return err
	}
	done := context.WithoutCancel(ctx)
	part, err := r.parts.cut(done)
	if err != nil {
		return err
	}
	d, _ := r.h.deleteWritten(done)
	part.Deleted += d
	r.st.Deleted += d
	r.w.start()
	return nil
}

// stageCheckpoint ends the gzip member, fsyncs the staged part in its
// durable directory and only then deletes exactly the messages written.
func (r *reading) stageCheckpoint(ctx context.Context) error {
	if err := r.w.end(); err != nil {
		return err
	}
	if err := r.parts.cur.Checkpoint(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	d, _ := r.h.deleteWritten(context.WithoutCancel(ctx))
	r.parts.staged += d
	r.st.Deleted += d
	r.w.start()
	return nil
}
