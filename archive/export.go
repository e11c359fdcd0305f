// Package archive keeps a DLQ's messages outside SQS, before retention
// deletes them: it exports every message of a queue to a JSON Lines file
// (gzip when the name ends in .gz, locally or in S3) in the SQS message
// shape that inspect and classify read, and reads such a file back for a
// redrive. An export never loses a message: without Delete every message
// is made visible again; with Delete exactly the exported messages are
// deleted, and only once the file is durable.
package archive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/receipts"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// SQS is the calls of an export, with the SDK's signatures so that
// *sqs.Client satisfies it.
type SQS interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	// GetQueueAttributes tells an export stalled at the in-flight limit
	// (messages still visible) from one that read everything.
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

var _ SQS = (*sqs.Client)(nil)

// Options shape one export.
type Options struct {
	Queue *sqsapi.Queue
	// Backlog is the queue's depth at the start: the export stops once it
	// has seen as many distinct messages, so a DLQ still filling ends.
	Backlog int
	// Max bounds the messages written (0: no bound).
	Max int
	// Select picks the messages to write; nil writes all. The others are
	// held to the end like the rest and made visible again, never deleted.
	Select func(*sqsjson.Message) (bool, error)
	// Visibility hides a received message (default 5 min); the hold is
	// renewed every third of it while the export runs, so a crash of mfdlq
	// returns the messages within Visibility.
	Visibility time.Duration
	// Wait is the receive long poll in seconds (default 2).
	Wait int32
	// QuietRounds is how many receives in a row with nothing new end the
	// reading (default 2).
	QuietRounds int
	// Delete deletes the written messages once the file is durable.
	Delete bool
	// Checkpoint, with Delete and a local file, is how many messages are
	// written between two checkpoints (default 10,000): the file so far is
	// made durable (a whole gzip member, fsynced) and exactly those
	// messages are deleted, so the export holds at most that many in
	// memory and in flight, whatever the DLQ's depth. An S3 export deletes
	// once, after the upload.
	Checkpoint int
	// InFlightLimit is how many messages the queue may have in flight
	// (default DefaultInFlightLimit). The export holds at most that many
	// less those in flight at the start (Queue.Depth.InFlight): with
	// checkpoints it checkpoints there, else it stops there (Stats.Limit).
	InFlightLimit int
	// RescueDir is where a local file that holds deleted messages is
	// copied when its own directory was removed while the export ran
	// (the incident directory); "" tries only the file's own directory.
	RescueDir string
	// Gzip compresses the file.
	Gzip bool
	// Progress is called after every receive.
	Progress func(Stats)
	// Waiting is called before the export waits until until for up to
	// hidden messages that receives whose answers were lost may hide.
	Waiting func(hidden int, until time.Time)
	// Clock is what the export's waits and timestamps read (nil: the
	// wall clock); tests pass an receipts.Fake.
	Clock receipts.Clock
}

// ErrBodyMismatch is a message whose body does not match its MD5OfBody.
var ErrBodyMismatch = errors.New("body does not match MD5OfBody")

// Export reads the queue's messages into sink and then either makes them
// all visible again or deletes exactly those written. Once ctx is
// cancelled no receive starts; what was received is made visible again and
// nothing is deleted. The returned error says why the export failed; the
// Stats say what happened to the messages either way.
func Export(ctx context.Context, c SQS, sink Sink, o Options) (Stats, error) {
	o.defaults()
	h := newHandles(c, o.Queue.URL, o.Visibility, o.Clock)
	stopRenew := h.renewEvery(o.Visibility / 3)
	st, werr := read(ctx, h, sink, o)
	stopRenew()
	// From here on, finish the release or delete whatever ctx says.
	done := context.WithoutCancel(ctx)
	parts, _ := sink.(*s3Parts)
	switch {
	case werr != nil && st.Deleted > 0:
		// Checkpoints deleted messages that are only in the partial file
		// (or the parts uploaded) now: keep it, and say where it is. Only
		// a part under way, whose messages were not deleted, goes.
		if parts != nil {
			parts.Abort()
		}
		st.Released, st.NotReleased = h.releaseAll(done)
		return st, fmt.Errorf("%w; %s", werr, keepDeleted(sink, &st, o))
	case werr != nil || (st.Interrupted && st.Deleted == 0):
		sink.Abort()
		st.Released, st.NotReleased = h.releaseAll(done)
		return st, werr
	}
	// A staged part holds messages deleted at its checkpoints: it is
	// uploaded even after Ctrl-C, and its other messages deleted with it.
	finishPart := parts != nil && parts.staged > 0
	if parts != nil && st.Interrupted && !finishPart {
		// The part under way is not uploaded: its messages are made
		// visible again, so every part holds only deleted messages.
		st.Exported -= parts.pending
		parts.pending = 0
	}
	loc, err := sink.Commit(done)
	if err != nil {
		st.Released, st.NotReleased = h.releaseAll(done)
		if st.Deleted > 0 {
			if parts != nil {
				parts.Abort()
			}
			return st, fmt.Errorf("%w; %s", err, keepDeleted(sink, &st, o))
		}
		sink.Abort()
		return st, fmt.Errorf("the file is not durable, nothing deleted: %w", err)
	}
	st.Location, st.Bytes, st.SHA256 = loc, sink.Size(), sink.SHA256()
	if o.Delete && (!st.Interrupted || finishPart) {
		d, nd := h.deleteWritten(done)
		st.Deleted += d
		st.NotDeleted = nd
		if parts != nil && d+nd > 0 {
			parts.parts[len(parts.parts)-1].Deleted += d
		}
	}
	if parts != nil && len(parts.parts) > 1 {
		st.Parts = parts.parts
	}
	st.Released, st.NotReleased = h.releaseAll(done)
	return st, nil
}

// keepDeleted makes sure the messages deleted before a failure are in a
// file or objects that exist, records where (Stats.Kept) and says so: the
// parts uploaded, or the local file cut back to its last checkpoint and
// kept under a visible name (fileSink.Keep).
func keepDeleted(sink Sink, st *Stats, o Options) string {
	if p, ok := sink.(*s3Parts); ok {
		where := p.completed()
		kept, err := p.keepStaged(o.RescueDir)
		switch {
		case err != nil:
			where = append(where, fmt.Sprintf("%s, whose copy failed: %v", p.cur.Partial(), err))
		case kept != "":
			where = append(where, kept+" (staged, fsynced before its messages were deleted)")
		}
		st.Kept = strings.Join(where, ", ")
		return fmt.Sprintf("the %d messages deleted so far are in %s: keep them", st.Deleted, st.Kept)
	}
	f, ok := sink.(*fileSink)
	if !ok {
		return fmt.Sprintf("the %d messages deleted so far are in the file", st.Deleted)
	}
	kept, err := f.Keep(o.RescueDir)
	if err != nil {
		return fmt.Sprintf("the %d messages deleted so far were in %s and %v: they are in no file, note their count and stop writing to this disk", st.Deleted, f.Partial(), err)
	}
	st.Kept = kept
	return fmt.Sprintf("the %d messages deleted so far are in %s (fsynced before each delete; nothing else in it): keep it, redrive --from-file %s moves them back", st.Deleted, kept, kept)
}

// Checkpointer is a Sink that can make what was written so far durable
// before the end (a local file): an export with Delete then deletes as it
// goes.
type Checkpointer interface {
	// Checkpoint flushes and fsyncs what was written.
	Checkpoint() error
	// Partial is the temporary file's name, which a crash leaves behind.
	Partial() string
}

var _ Checkpointer = (*fileSink)(nil)

func (o *Options) defaults() {
	if o.Visibility <= 0 {
		o.Visibility = 5 * time.Minute
	}
	if o.Wait <= 0 {
		o.Wait = 2
	}
	if o.QuietRounds <= 0 {
		o.QuietRounds = 2
	}
	if o.Checkpoint <= 0 {
		o.Checkpoint = 10000
	}
	if o.Clock == nil {
		o.Clock = receipts.System
	}
}
