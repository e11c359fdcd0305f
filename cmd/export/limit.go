package export

import (
	"fmt"
	"os"
	"strconv"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// inFlightLimitEnv overrides SQS's in-flight limit: for an account whose
// quota AWS Support raised, and for a local harness that enforces a small
// one (internal/inflight).
const inFlightLimitEnv = "MFDLQ_INFLIGHT_LIMIT"

// inFlightLimit is the in-flight limit export plans with.
func inFlightLimit() (int, error) {
	v := os.Getenv(inFlightLimitEnv)
	if v == "" {
		return archive.DefaultInFlightLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, cmdutil.UsageErrorf("%s=%q: want a whole number of messages ≥ 1 (SQS's is %s), or unset it", inFlightLimitEnv, v, inventory.Thousands(archive.DefaultInFlightLimit))
	}
	return n, nil
}

// checkChained refuses, before anything is read, an export without
// --delete of a DLQ that has its own redrive policy: every receive counts
// toward its maxReceiveCount, and the messages this export makes visible
// again would be a receive nearer the next DLQ (inspect's refusal). With
// --delete the exported messages leave the DLQ, so their count no longer
// matters: a warning names the ones it can still push onward.
func (o *ExportOptions) checkChained(q *sqsapi.Queue) error {
	p := q.RedrivePolicy
	switch {
	case p == nil:
		return nil
	case !o.Delete && !o.Force:
		return cmdutil.ChainedDLQError(q, "every message an export reads",
			"pass --force to export anyway, or --delete to archive and remove them (once received they leave the DLQ)")
	case !o.Delete:
		o.deps.Warnf("%s has its own redrive policy (maxReceiveCount %d → %s): --force: every message read now counts one more receive; one that reaches %d moves on to %s on its next receive",
			q.Name, p.MaxReceiveCount, sqsapi.NameFromARN(p.DeadLetterTargetArn), p.MaxReceiveCount, sqsapi.NameFromARN(p.DeadLetterTargetArn))
	default:
		o.deps.Warnf("%s has its own redrive policy (maxReceiveCount %d → %s): a message already received %d times moves to %s on this export's receive instead of into the file; export %s afterwards",
			q.Name, p.MaxReceiveCount, sqsapi.NameFromARN(p.DeadLetterTargetArn), p.MaxReceiveCount, sqsapi.NameFromARN(p.DeadLetterTargetArn), sqsapi.NameFromARN(p.DeadLetterTargetArn))
	}
	return nil
}

// limitText is the in-flight limit as the plan and the stop state it.
func (o *ExportOptions) limitText() string {
	if o.limit == archive.DefaultInFlightLimit {
		return "SQS lets a queue have about " + inventory.Thousands(int64(o.limit)) + " in flight"
	}
	return fmt.Sprintf("%s lets this queue have %s in flight", inFlightLimitEnv, inventory.Thousands(int64(o.limit)))
}

// planLimit says, before anything is read, what the in-flight limit does
// to this export: nothing when the DLQ fits, a stop without --delete (or
// one part a run to S3), parts with --delete into a file.
func (o *ExportOptions) planLimit(q *sqsapi.Queue) {
	d := o.deps
	room := o.limit - int(q.Depth.InFlight)
	want := int(q.Depth.Visible + q.Depth.Delayed)
	if o.Max > 0 {
		want = min(want, o.Max)
	}
	switch {
	case want <= room:
	case o.Delete && o.s3 == nil:
		d.Infof("plan: %d to read, more than this export may hold (%s, %d of them held by others now): it goes in parts of at most 10,000 (fewer at the limit), each fsynced before exactly its messages are deleted, so no more than one part is in flight",
			want, o.limitText(), q.Depth.InFlight)
	case o.Delete:
		d.Infof("plan: %d to read, more than this export may hold (%s, %d of them held by others now): it goes in parts of at most %d, each its own object (%s, then %s …), uploaded and read back before exactly its messages are deleted, so no more than one part is in flight",
			want, o.limitText(), q.Depth.InFlight, max(room, 1), o.s3.Key, archive.PartName(o.s3.Key, 2))
	default:
		d.Infof("plan: %d to read, %d more than this export may hold (%s, %d of them held by others now): without --delete it holds every message it reads, so it stops at the limit and exits 3; --delete archives the whole queue in parts, each durable before exactly its messages are deleted",
			want, want-max(room, 0), o.limitText(), q.Depth.InFlight)
	}
}

// limitStop reports an export that stopped at the in-flight limit: what
// it wrote, why it stopped, where the messages are, and the way on.
func (o *ExportOptions) limitStop(q *sqsapi.Queue, backlog int, st archive.Stats) error {
	d := o.deps
	switch st.Limit {
	case archive.LimitOverLimit:
		d.Warnf("SQS answered OverLimit (too many messages in flight) while this export held %d: %s", st.Held, o.limitText())
	case archive.LimitEmpty:
		d.Warnf("SQS returned no more messages while %d stayed visible and this export held %d: a receive at the in-flight limit comes back empty (%s)", st.VisibleLeft, st.Held, o.limitText())
	default:
		d.Warnf("this export held %d in flight, all it may (%s, %d of them held by others at the start)", st.Held, o.limitText(), q.Depth.InFlight)
	}
	after := fmt.Sprintf("the %s read were made visible again (any missed come back within %ds)", plural.Of(st.Released, "message"), o.Visibility)
	if st.Deleted > 0 {
		after = fmt.Sprintf("%d deleted once %s was durable; %s", st.Deleted, st.Location, after)
	}
	d.Warnf("%s", after)
	if o.Delete {
		return cmdutil.CheckFailedf("exported %d of %d from %s to %s and stopped at SQS's in-flight limit: run export again with a new --out for the rest (a local file goes in parts)", st.Exported, backlog, q.Name, st.Location)
	}
	return cmdutil.CheckFailedf("exported %d of %d from %s to %s and stopped at SQS's in-flight limit: use --delete to archive the rest, each part deleted only after it is durable", st.Exported, backlog, q.Name, st.Location)
}
