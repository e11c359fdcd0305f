package verify

import "fmt"

// unseen is the reason of a DLQ holding more than was left that the peek
// could not see whole: a redriven message failing back lands behind the
// backlog (SQS hands out older messages first, on FIFO never past the
// first batch of a message group, and in-flight or delayed ones not at
// all), so the unseen ones may be returns.
func unseen(o Observation, r Redriven, dlq, extra int64) string {
	why := fmt.Sprintf("SQS hands out older messages first and a returned message lands behind them; a peek reads at most %d", MaxPeek)
	if o.FIFO {
		why = "on a FIFO DLQ a peek never gets past the first batch of each message group"
	}
	return fmt.Sprintf("not proven: the DLQ holds %d, %d left on purpose, and the peek saw %d of them (%d in flight, %d delayed): the %d more may be redriven messages coming back (%s)",
		dlq, r.Left, o.Peeked, o.DLQInFlight, o.DLQDelayed, extra, why)
}

// peekedOf notes how much of the DLQ the peek saw, when it did not see
// it whole: the count decided, not the peek.
func peekedOf(o Observation, dlq int64) string {
	if o.NoPeek || int64(o.Peeked) >= dlq {
		return ""
	}
	return fmt.Sprintf("; the peek saw %d of them, the count decides", o.Peeked)
}
