package sqsapi

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/awserr"
)

// SourceQueues returns the queues whose redrive policy points at dlq, sorted
// by name. It asks ListDeadLetterSourceQueues first; when that is denied or
// not implemented it scans ListQueues for a RedrivePolicy naming dlq's ARN.
func SourceQueues(ctx context.Context, c Client, dlq *Queue) ([]*Queue, error) {
	urls, err := SourceURLs(ctx, c, dlq)
	if err != nil {
		if !IsUnsupportedOrDenied(err) {
			return nil, fmt.Errorf("find source queues of %s: %w", dlq.Name, err)
		}
		return scanForSources(ctx, c, dlq)
	}
	var out []*Queue
	for _, u := range urls {
		r, err := parseURL(u)
		if err != nil {
			continue
		}
		q := &Queue{Name: r.name, URL: u, Region: dlq.Region}
		if err := Refresh(ctx, c, q); err != nil {
			if awserr.QueueMissing(err) {
				continue // deleted between the two calls
			}
			return nil, fmt.Errorf("source queue %s: %w", q.Name, err)
		}
		out = append(out, q)
	}
	sortQueues(out)
	return out, nil
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
// redrive policy, scanConcurrency at a time (ReadAll).
func scanForSources(ctx context.Context, c Client, dlq *Queue) ([]*Queue, error) {
	urls, err := ListURLs(ctx, c, "")
	if err != nil {
		return nil, fmt.Errorf("find source queues of %s: %w", dlq.Name, err)
	}
	urls = slices.DeleteFunc(urls, func(u string) bool {
		_, err := parseURL(u)
		return err != nil || u == dlq.URL
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
		if q.DeadLettersTo(dlq) {
			out = append(out, q)
		}
	}
	sortQueues(out)
	return out, nil
}

func sortQueues(qs []*Queue) {
	sort.Slice(qs, func(i, j int) bool { return qs[i].Name < qs[j].Name })
}
