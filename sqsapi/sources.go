package sqsapi

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// SourceQueues returns the queues whose redrive policy points at dlq, sorted
// by name. It asks ListDeadLetterSourceQueues first; when that is denied or
// not implemented it scans ListQueues for a RedrivePolicy naming dlq's ARN.
// Either way the queues are read scanConcurrency at a time (readSources):
// a DLQ shared by many sources costs a few round trips, not one a source.
func SourceQueues(ctx context.Context, c Client, dlq *Queue) ([]*Queue, error) {
	urls, err := SourceURLs(ctx, c, dlq)
	if err != nil {
		if !IsUnsupportedOrDenied(err) {
			return nil, fmt.Errorf("find source queues of %s: %w", dlq.Name, err)
		}
		return scanForSources(ctx, c, dlq)
	}
	return readSources(ctx, c, dlq, urls, func(*Queue) bool { return true })
}

// SourcesLister is the one call SourceURLs makes: a listing (inventory)
// passes its own smaller client.
type SourcesLister interface {
	ListDeadLetterSourceQueues(ctx context.Context, in *sqs.ListDeadLetterSourceQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error)
}

// SourceURLs lists the URLs of the queues whose redrive policy names dlq by
// ListDeadLetterSourceQueues alone (paginated, 1,000 a page): enough for a
// step that only needs to know whether a DLQ is shared, without
// SourceQueues' GetQueueAttributes per source or its ListQueues scan when
// the call is denied — the error is returned instead.
func SourceURLs(ctx context.Context, c SourcesLister, dlq *Queue) ([]string, error) {
	var urls []string
	in := &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq.URL), MaxResults: aws.Int32(1000)}
	for {
		out, err := c.ListDeadLetterSourceQueues(ctx, in)
		if err != nil {
			return nil, err
		}
		urls = append(urls, out.QueueUrls...)
		if aws.ToString(out.NextToken) == "" {
			return urls, nil
		}
		in.NextToken = out.NextToken
	}
}

// LooksLikeSource tells whether q, given where a DLQ was expected, looks
// like the source queue instead: it sends its failures to a DLQ of its own
// (named in dlq) and no queue sends failures to it. A DLQ with its own
// redrive policy and no source attached any more looks the same, so a
// caller warns rather than refuses. One ListDeadLetterSourceQueues, only
// for a queue with a redrive policy; unanswered, it does not look so.
func LooksLikeSource(ctx context.Context, c SourcesLister, q *Queue) (dlq string, ok bool) {
	if q.RedrivePolicy == nil {
		return "", false
	}
	if urls, err := SourceURLs(ctx, c, q); err != nil || len(urls) > 0 {
		return "", false
	}
	return NameFromARN(q.RedrivePolicy.DeadLetterTargetArn), true
}

// scanConcurrency bounds the GetQueueAttributes calls in flight of the
// ListQueues scan: read one after another, an account's queues cost a
// round trip each before a redrive can start (40 queues at 20 ms a call:
// 0.8 s), which grew with every queue the account held.
const scanConcurrency = 16

// scanForSources finds dlq's sources by reading every other queue's
// redrive policy (readSources).
func scanForSources(ctx context.Context, c Client, dlq *Queue) ([]*Queue, error) {
	urls, err := ListURLs(ctx, c, "")
	if err != nil {
		return nil, fmt.Errorf("find source queues of %s: %w", dlq.Name, err)
	}
	urls = slices.DeleteFunc(urls, func(u string) bool { return u == dlq.URL })
	return readSources(ctx, c, dlq, urls, func(q *Queue) bool { return q.DeadLettersTo(dlq) })
}

// readSources reads the queues at urls, scanConcurrency at a time
// (ReadAll), and returns those keep takes, sorted by name. A URL that is
// not a queue's, or a queue deleted since it was listed, is left out.
func readSources(ctx context.Context, c Client, dlq *Queue, urls []string, keep func(*Queue) bool) ([]*Queue, error) {
	urls = slices.DeleteFunc(slices.Clone(urls), func(u string) bool {
		_, err := parseURL(u)
		return err != nil
	})
	queues, err := ReadAll(ctx, c, urls, scanConcurrency)
	if err != nil {
		return nil, fmt.Errorf("find source queues of %s: %w", dlq.Name, err)
	}
	var out []*Queue
	for _, q := range queues {
		if q.Region == "" {
			q.Region = dlq.Region // a server that reports no ARN
		}
		if keep(q) {
			out = append(out, q)
		}
	}
	sortQueues(out)
	return out, nil
}

func sortQueues(qs []*Queue) {
	sort.Slice(qs, func(i, j int) bool { return qs[i].Name < qs[j].Name })
}
