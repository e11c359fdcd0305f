package redrive

import (
	"github.com/mfdlq/mfdlq/sqsapi"
)

// checkChained refuses, before anything receives from it, to redrive a
// DLQ that has its own redrive policy: every receive of its messages
// counts toward that policy's maxReceiveCount, and a redrive receives
// messages it then leaves on purpose (those the selection skips, the
// DLQ's messages it peeks at for the canary's returns, a batch whose send
// failed), which SQS then moves on to the next DLQ. --force warns and goes
// on; --native receives nothing itself (SQS's move task moves them).
func checkChained(env *Env, req Request, dlq *sqsapi.Queue) error {
	chain := dlq.Chained()
	if chain == "" || req.Native {
		return nil
	}
	return refuse(env, req, &Refusal{Reason: chain + ": every receive counts toward it, and a message this redrive receives and leaves " +
		"(skipped by the selection, peeked at for the canary's returns, a send that failed) can move on to " +
		sqsapi.NameFromARN(dlq.RedrivePolicy.DeadLetterTargetArn) + "; pass --force to redrive anyway"})
}
