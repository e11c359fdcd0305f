package inspect

import (
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// sourceLabel is how a message's source queue is shown: its name, the
// attribute as it is when that is no SQS ARN, classify.NoSourceName
// without one. Callers sanitise it (a file's attribute is hostile).
func sourceLabel(m *sqsjson.Message) string {
	if name, ok := m.SourceQueue(); ok {
		return name
	}
	if arn := m.SourceARN(); arn != "" {
		return arn
	}
	return classify.NoSourceName
}

// severalSources tells whether msgs came from more than one source (a
// message without DeadLetterQueueSourceArn counts as one of its own), or
// the DLQ has several by redrive policy: then inspect shows a SOURCE column.
func severalSources(msgs []sqsjson.Message, policy int) bool {
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
