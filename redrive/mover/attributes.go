package mover

import (
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// AttributeReader is a Transformer that says whether its program reads
// the system attributes ($message.Attributes): if not, a receive need not
// ask SQS for them.
type AttributeReader interface {
	ReadsAttributes() bool
}

// systemAttributes is what a receive of this move asks SQS for
// (MessageSystemAttributeNames), worked out once from the options: what
// the move itself reads of each message, and every attribute only when a
// selection or a transform's program may read any of them. Each name
// asked for costs SQS and us work on every message; one left out is one
// the run reads as missing, so each reader below names its own.
//
//   - MessageGroupId, always: the send keeps a FIFO message's group (a
//     fair standard queue's tenant), and FIFO batches are held back by it.
//   - SentTimestamp, when a send journals the payload's SHA-256 (a target,
//     a transform): IsReturn tells a return from a duplicate by it, and a
//     message without one counts as returned.
//   - DeadLetterQueueSourceArn, with a Router (a shared DLQ).
//   - All, with a selection (--filter reads .Attributes, --sent-after the
//     SentTimestamp…) or a transform whose program reads $message.
//
// The originals a transform keeps carry what was asked for: the group for
// the undo into a FIFO DLQ, the SentTimestamp for a replay's selection.
func systemAttributes(o *Options) []types.MessageSystemAttributeName {
	if o.Select != nil || readsAttributes(o.Transform) {
		return []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}
	}
	names := []types.MessageSystemAttributeName{types.MessageSystemAttributeNameMessageGroupId}
	if o.Target != nil || o.Transform != nil {
		names = append(names, types.MessageSystemAttributeNameSentTimestamp)
	}
	if o.Route != nil {
		names = append(names, types.MessageSystemAttributeNameDeadLetterQueueSourceArn)
	}
	return names
}

// readsAttributes: t's program may read the system attributes; a
// Transformer that does not say is taken to.
func readsAttributes(t Transformer) bool {
	if t == nil {
		return false
	}
	r, ok := t.(AttributeReader)
	return !ok || r.ReadsAttributes()
}
