package sqsjson

import "strings"

// AttrDeadLetterQueueSourceArn is the system attribute SQS sets on a message
// its redrive policy moved into a dead-letter queue: the ARN of the queue
// the message was moved from. ReceiveMessage returns it only when asked
// (MessageSystemAttributeNames "All" or the name itself). A message sent to
// the DLQ directly, or moved by an SQS older than the attribute, has none;
// a source queue deleted since keeps its ARN on the message.
const AttrDeadLetterQueueSourceArn = "DeadLetterQueueSourceArn"

// SourceARN returns the ARN of the queue SQS moved m from (the
// DeadLetterQueueSourceArn attribute), or "" when m has none. It is read
// as SQS wrote it and is hostile like every attribute of a file: callers
// sanitise it before a terminal.
func (m *Message) SourceARN() string {
	return strings.TrimSpace(m.Attributes[AttrDeadLetterQueueSourceArn])
}

// SourceQueue returns the name of the queue SQS moved m from, the last
// field of its DeadLetterQueueSourceArn. ok is false when m has no such
// attribute or it is not an SQS ARN (arn:PARTITION:sqs:REGION:ACCOUNT:NAME):
// a hand-edited file, or an attribute this version does not understand.
func (m *Message) SourceQueue() (name string, ok bool) {
	return QueueNameOfARN(m.SourceARN())
}

// QueueNameOfARN returns the queue name of an SQS queue ARN
// (arn:PARTITION:sqs:REGION:ACCOUNT:NAME); ok is false for anything else,
// a name SQS would not accept included (1-80 letters, digits, hyphens and
// underscores, a FIFO queue's ".fifo" after them). sqsjson imports no AWS
// package, so it parses the six fields itself.
func QueueNameOfARN(arn string) (name string, ok bool) {
	f := strings.SplitN(arn, ":", 6)
	if len(f) != 6 || f[0] != "arn" || f[1] == "" || f[2] != "sqs" || f[4] == "" || !validQueueName(f[5]) {
		return "", false
	}
	return f[5], true
}

func validQueueName(name string) bool {
	base := strings.TrimSuffix(name, ".fifo")
	if base == "" || len(name) > 80 {
		return false
	}
	for _, r := range base {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
