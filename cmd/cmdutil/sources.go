package cmdutil

import (
	"context"
	"time"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
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

// SourceLabel is how a message's source queue is shown: its name, the
// attribute as it is when that is no SQS ARN, classify.NoSourceName
// without one. Callers sanitise it (a file's attribute is hostile).
func SourceLabel(m *sqsjson.Message) string {
	if name, ok := m.SourceQueue(); ok {
		return name
	}
	if arn := m.SourceARN(); arn != "" {
		return arn
	}
	return classify.NoSourceName
}

// SeveralSources tells whether msgs came from more than one source (a
// message without DeadLetterQueueSourceArn counts as one of its own), or
// the DLQ has several by redrive policy: then inspect shows a SOURCE column.
func SeveralSources(msgs []sqsjson.Message, policy int) bool {
	if policy > 1 {
		return true
	}
	for i := 1; i < len(msgs); i++ {
		if msgs[i].SourceARN() != msgs[0].SourceARN() {
			return true
		}
	}
	return false
}
