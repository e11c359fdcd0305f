package sqsapi

import "fmt"

// Chained says what makes receiving from q unsafe, or "": q, a DLQ, has
// its own redrive policy, so every receive of its messages (a peek, a
// message a redrive leaves on purpose, a canary's look for returns) counts
// toward its maxReceiveCount, and past that SQS moves the message on to
// the next DLQ. Every command that receives from a DLQ checks it first.
func (q *Queue) Chained() string {
	if q == nil || q.RedrivePolicy == nil {
		return ""
	}
	return fmt.Sprintf("%s has its own redrive policy (maxReceiveCount %d → %s)", q.Name, q.RedrivePolicy.MaxReceiveCount, NameFromARN(q.RedrivePolicy.DeadLetterTargetArn))
}
