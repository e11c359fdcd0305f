package cmdutil

import (
	"context"
	"time"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// PolicySources is how many queues' redrive policies name dlq as their
// dead-letter queue, by one ListDeadLetterSourceQueues (paginated): 0 when
// unknown (no queue, a role that may not list them, a slow answer). It is
// best effort: the messages' own DeadLetterQueueSourceArn decides then.
func (d *Deps) PolicySources(ctx context.Context, dlq *sqsapi.Queue) int {
	if dlq == nil {
		return 0
	}
	client, err := d.SQS(ctx)
	if err != nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	urls, err := sqsapi.SourceURLs(ctx, client, dlq)
	if err != nil {
		return 0
	}
	return len(urls)
}
