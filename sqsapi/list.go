package sqsapi

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// ListAPI is the listing call, with the SDK's signature.
type ListAPI interface {
	ListQueues(ctx context.Context, in *sqs.ListQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error)
}

// ListURLs pages through ListQueues (1,000 a page, SQS's maximum): every
// queue of the account and region whose name starts with prefix ("" all).
func ListURLs(ctx context.Context, c ListAPI, prefix string) ([]string, error) {
	in := &sqs.ListQueuesInput{MaxResults: aws.Int32(1000)}
	if prefix != "" {
		in.QueueNamePrefix = aws.String(prefix)
	}
	var urls []string
	for {
		page, err := c.ListQueues(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list queues: %w", err)
		}
		urls = append(urls, page.QueueUrls...)
		if aws.ToString(page.NextToken) == "" {
			return urls, nil
		}
		in.NextToken = page.NextToken
	}
}

// ReadAll reads every queue's attributes, concurrency at a time, in the
// order of urls. A queue deleted since it was listed is left out; any
// other failure is the error (the first, in urls' order).
func ReadAll(ctx context.Context, c AttributesAPI, urls []string, concurrency int) ([]*Queue, error) {
	out := make([]*Queue, len(urls))
	errs := make([]error, len(urls))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(max(concurrency, 1), max(len(urls), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				q := &Queue{Name: NameOf(urls[i]), URL: urls[i]}
				switch err := Refresh(ctx, c, q); {
				case err == nil:
					out[i] = q
				case !IsQueueMissing(err):
					errs[i] = fmt.Errorf("read queue %s: %w", q.Name, err)
				}
			}
		}()
	}
	for i := range urls {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var qs []*Queue
	for i := range urls {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if out[i] != nil {
			qs = append(qs, out[i])
		}
	}
	return qs, nil
}

// ListingAPI is the calls of ReadListing, with the SDK's signatures.
type ListingAPI interface {
	ListAPI
	AttributesAPI
}

// Listing is every queue of an account and region under a prefix, each
// read once, and which of them dead-letter to which: what ls and check
// --all both start from.
type Listing struct {
	Queues []*Queue // in ListQueues' order
	ByARN  map[string]*Queue
	// Sources maps a listed DLQ's ARN to the listed queues whose redrive
	// policy names it, in listing order. A policy naming a queue that was
	// not listed (deleted, outside the prefix, another account) is in no
	// entry: the caller decides what that means.
	Sources map[string][]*Queue
}

// ReadListing lists the queues whose names start with prefix ("" all),
// reads their attributes concurrency at a time (ReadAll) and indexes them.
func ReadListing(ctx context.Context, c ListingAPI, prefix string, concurrency int) (*Listing, error) {
	urls, err := ListURLs(ctx, c, prefix)
	if err != nil {
		return nil, err
	}
	queues, err := ReadAll(ctx, c, urls, concurrency)
	if err != nil {
		return nil, err
	}
	l := &Listing{Queues: queues, ByARN: make(map[string]*Queue, len(queues)), Sources: map[string][]*Queue{}}
	for _, q := range queues {
		l.ByARN[q.ARN] = q
	}
	for _, q := range queues {
		if q.RedrivePolicy != nil && l.ByARN[q.RedrivePolicy.DeadLetterTargetArn] != nil {
			t := q.RedrivePolicy.DeadLetterTargetArn
			l.Sources[t] = append(l.Sources[t], q)
		}
	}
	return l, nil
}
