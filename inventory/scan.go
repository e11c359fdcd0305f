package inventory

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// SQS is the SQS calls of a listing, with the SDK's signatures so that
// *sqs.Client satisfies it. None of them receives a message.
type SQS interface {
	ListQueues(ctx context.Context, in *sqs.ListQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
	ListDeadLetterSourceQueues(ctx context.Context, in *sqs.ListDeadLetterSourceQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error)
}

var _ SQS = (*sqs.Client)(nil)

// scan finds the DLQs: every queue is read once, and a queue is a DLQ when
// another queue's RedrivePolicy names its ARN.
type scan struct {
	c Clients
	o Options
}

func (s *scan) run(ctx context.Context) ([]DLQ, error) {
	urls, err := sqsapi.ListURLs(ctx, s.c.SQS, s.o.Prefix)
	if err != nil {
		return nil, err
	}
	queues, err := s.read(ctx, urls)
	if err != nil {
		return nil, err
	}
	byARN := make(map[string]*sqsapi.Queue, len(queues))
	for _, q := range queues {
		byARN[q.ARN] = q
	}
	sources := map[string][]*sqsapi.Queue{} // DLQ ARN → its sources
	for _, q := range queues {
		if q.RedrivePolicy != nil && byARN[q.RedrivePolicy.DeadLetterTargetArn] != nil {
			t := q.RedrivePolicy.DeadLetterTargetArn
			sources[t] = append(sources[t], q)
		}
	}
	if s.o.Prefix != "" {
		// The sources of a DLQ inside the prefix may lie outside it: ask
		// SQS for them, but only for queues that could be a DLQ.
		if err := s.sourcesOutside(ctx, queues, sources); err != nil {
			return nil, err
		}
	}
	var out []DLQ
	for arn, srcs := range sources {
		d := fromQueue(byARN[arn])
		sort.Slice(srcs, func(i, j int) bool { return srcs[i].Name < srcs[j].Name })
		for _, q := range srcs {
			d.Sources = append(d.Sources, Source{Queue: q.Name, URL: q.URL, ARN: q.ARN,
				Retention: int64(q.Retention.Seconds()), MaxReceiveCount: q.RedrivePolicy.MaxReceiveCount})
		}
		out = append(out, d)
	}
	return out, nil
}

// read reads every queue's attributes, Concurrency at a time
// (sqsapi.ReadAll). A queue deleted since it was listed is left out.
func (s *scan) read(ctx context.Context, urls []string) ([]*sqsapi.Queue, error) {
	return sqsapi.ReadAll(ctx, s.c.SQS, urls, s.o.Concurrency)
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
		srcs, err := s.read(ctx, urls)
		if err != nil {
			return err
		}
		for _, src := range srcs {
			if src.RedrivePolicy != nil && src.RedrivePolicy.DeadLetterTargetArn == q.ARN {
				sources[q.ARN] = append(sources[q.ARN], src)
			}
		}
	}
	return nil
}
