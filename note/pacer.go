package note

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"golang.org/x/time/rate"
)

// TaggingTPS is SQS's documented limit of tagging actions per account
// (ListQueueTags, TagQueue, UntagQueue: 5 a second); ReadTPS is what a
// listing takes of it, leaving one a second to the lease renewals of the
// redrives running in that account.
const (
	TaggingTPS = 5
	ReadTPS    = 4
)

// Pacer spaces the tag reads of one process per account, across regions
// (the limit is the account's): one limiter per account.
type Pacer struct {
	mu  sync.Mutex
	per map[string]*rate.Limiter
	tps rate.Limit
}

// NewPacer paces at tps reads a second per account (ReadTPS when 0).
func NewPacer(tps float64) *Pacer {
	if tps <= 0 {
		tps = ReadTPS
	}
	return &Pacer{per: map[string]*rate.Limiter{}, tps: rate.Limit(tps)}
}

// Wait blocks until account may make one more tagging call.
func (p *Pacer) Wait(ctx context.Context, account string) error {
	p.mu.Lock()
	l, ok := p.per[account]
	if !ok {
		l = rate.NewLimiter(p.tps, 1)
		p.per[account] = l
	}
	p.mu.Unlock()
	return l.Wait(ctx)
}

// Queue is one queue whose note a listing reads, with the client of its
// account and region.
type Queue struct {
	Account string
	URL     string
	Client  Tags
}

// ReadAllWith reads the notes of qs, paced per account, a few at a time,
// and returns, per queue, the raw value of the tag named also ("" when
// absent or also is ""), from the same ListQueueTags: a listing shows a
// running redrive's lease beside the note without a second call against
// the 5 a second. A queue whose tags cannot be read is left out and its
// error returned in errs (same index); the others are read.
func ReadAllWith(ctx context.Context, p *Pacer, qs []Queue, also string) (notes []*Note, alsos []string, errs []error) {
	notes, alsos, errs = make([]*Note, len(qs)), make([]string, len(qs)), make([]error, len(qs))
	work := make(chan int)
	var wg sync.WaitGroup
	// A handful in flight is enough: the pacer, not the workers, bounds
	// the rate; more would only queue on the limiter.
	for range min(4, max(len(qs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := p.Wait(ctx, qs[i].Account); err != nil {
					errs[i] = err
					continue
				}
				out, err := qs[i].Client.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(qs[i].URL)})
				if err != nil {
					errs[i] = tagErr(err)
					continue
				}
				notes[i] = FromTags(out.Tags)
				if also != "" {
					alsos[i] = out.Tags[also]
				}
			}
		}()
	}
	for i := range qs {
		work <- i
	}
	close(work)
	wg.Wait()
	return notes, alsos, errs
}
