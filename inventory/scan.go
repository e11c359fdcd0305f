package inventory

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// SQS is the SQS calls of a listing, all made through sqsapi
// (ReadListing, SourceURLs), with the SDK's signatures so that *sqs.Client
// satisfies it. None of them receives a message.
type SQS interface {
	sqsapi.ListingAPI
	sqsapi.SourcesLister
}

var _ SQS = (*sqs.Client)(nil)

// scan finds the DLQs: every queue is read once, and a queue is a DLQ when
// another queue's RedrivePolicy names its ARN.
type scan struct {
	c Clients
	o Options
}

func (s *scan) run(ctx context.Context) ([]DLQ, error) {
	l, err := sqsapi.ReadListing(ctx, s.c.SQS, s.o.Prefix, s.o.Concurrency)
	if err != nil {
		return nil, err
	}
	if s.o.Prefix != "" {
		// The sources of a DLQ inside the prefix may lie outside it: ask
		// SQS for them, but only for queues that could be a DLQ.
		if err := s.sourcesOutside(ctx, l.Queues, l.Sources); err != nil {
			return nil, err
		}
	}
	var out []DLQ
	for arn, srcs := range l.Sources {
		d := fromQueue(l.ByARN[arn])
		sort.Slice(srcs, func(i, j int) bool { return srcs[i].Name < srcs[j].Name })
		for _, q := range srcs {
			d.Sources = append(d.Sources, Source{Queue: q.Name, URL: q.URL, ARN: q.ARN,
				Retention: int64(q.Retention.Seconds()), MaxReceiveCount: q.RedrivePolicy.MaxReceiveCount})
		}
		out = append(out, d)
	}
	return out, nil
}

// sourcesOutside asks ListDeadLetterSourceQueues of every listed queue
// that has no redrive policy of its own and is not yet known as a DLQ,
// and reads the sources it names.
func (s *scan) sourcesOutside(ctx context.Context, queues []*sqsapi.Queue, sources map[string][]*sqsapi.Queue) error {
	for _, q := range queues {
		if q.RedrivePolicy != nil || sources[q.ARN] != nil {
			continue
		}
		urls, err := sqsapi.SourceURLs(ctx, s.c.SQS, q)
		if err != nil {
			if sqsapi.IsUnsupportedOrDenied(err) {
				return nil // the prefix's own sources are all we can know
			}
			return fmt.Errorf("list dead-letter source queues of %s: %w", q.Name, err)
		}
		srcs, err := sqsapi.ReadAll(ctx, s.c.SQS, urls, s.o.Concurrency)
		if err != nil {
			return err
		}
		for _, src := range srcs {
			if src.DeadLettersTo(q) {
				sources[q.ARN] = append(sources[q.ARN], src)
			}
		}
	}
	return nil
}
