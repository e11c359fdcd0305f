package sqsapi

import (
	"fmt"
	"time"
)

// Expiry is when the oldest message of a DLQ is deleted by SQS for its age:
// the DLQ's retention period after the oldest message's enqueue time.
type Expiry struct {
	// Oldest is when the oldest message entered the clock SQS counts
	// retention from, as far as the evidence tells.
	Oldest time.Time `json:"oldest_enqueued_at"`
	// At is Oldest plus the DLQ's retention period.
	At time.Time `json:"expires_at"`
	// UpperBound is true when the message may go sooner than At: on a
	// standard queue SQS counts retention from the message's first enqueue
	// in its source, while CloudWatch's age of oldest counts from its
	// arrival in the DLQ, so the time it spent in the source is not seen.
	UpperBound bool `json:"upper_bound"`
	// Basis says where Oldest comes from: "cloudwatch" (the DLQ's
	// ApproximateAgeOfOldestMessage) or "sent_timestamp" (peeked messages).
	Basis string `json:"basis"`
}

// Bases of an Expiry.
const (
	BasisCloudWatch    = "cloudwatch"
	BasisSentTimestamp = "sent_timestamp"
)

// FromAge is the expiry of a DLQ whose oldest message was ageSeconds old at
// readAt (CloudWatch's ApproximateAgeOfOldestMessage and its timestamp).
// Reading the enqueue time back out of the point, rather than subtracting the
// age from the retention, keeps the countdown right however old the point is.
func FromAge(ageSeconds float64, readAt time.Time, retention time.Duration, fifo bool) Expiry {
	oldest := readAt.Add(-time.Duration(ageSeconds * float64(time.Second))).UTC().Truncate(time.Second)
	return Expiry{Oldest: oldest, At: oldest.Add(retention), UpperBound: !fifo, Basis: BasisCloudWatch}
}

// FromSent is the expiry of a standard DLQ whose oldest known message was
// first sent at sent (its SentTimestamp, which SQS keeps across the move to
// the DLQ and counts retention from). It is exact for the message seen.
func FromSent(sent time.Time, retention time.Duration) Expiry {
	sent = sent.UTC().Truncate(time.Second)
	return Expiry{Oldest: sent, At: sent.Add(retention), Basis: BasisSentTimestamp}
}

// Earliest returns the sooner of two expiries; a zero one is absent.
func Earliest(a, b *Expiry) *Expiry {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case b.At.Before(a.At):
		return b
	}
	return a
}

// In is how long is left at now (negative once past).
func (e Expiry) In(now time.Time) time.Duration { return e.At.Sub(now) }

// Urgent is the threshold below which the runbook warns and names export.
const Urgent = 24 * time.Hour

// RetentionApplyDelay is how long SQS may take to apply a changed
// MessageRetentionPeriod ("up to 15 minutes", SetQueueAttributes in the
// SQS API reference): a countdown shorter than this is not saved by
// raising the retention.
const RetentionApplyDelay = 15 * time.Minute

// Countdown is the one-line statement of the expiry at now:
// "oldest expires in 2 h 13 min — 2026-12-01 05:40 UTC".
func (e Expiry) Countdown(now time.Time) string {
	left := e.In(now)
	when := e.At.UTC().Format("2006-01-02 15:04 UTC")
	prefix := "in "
	if e.UpperBound {
		prefix = "in at most "
	}
	if left <= 0 {
		return fmt.Sprintf("oldest message due to expire %s ago — %s", Human(-left), when)
	}
	return fmt.Sprintf("oldest expires %s%s — %s", prefix, Human(left), when)
}

// Human writes a duration as on-call people say it: "47 min", "2 h 13 min",
// "3 d 4 h"; under a minute, "<1 min".
func Human(d time.Duration) string {
	d = d.Truncate(time.Minute)
	days, hours, mins := d/(24*time.Hour), (d%(24*time.Hour))/time.Hour, (d%time.Hour)/time.Minute
	switch {
	case d < time.Minute:
		return "<1 min"
	case days > 0 && hours > 0:
		return fmt.Sprintf("%d d %d h", days, hours)
	case days > 0:
		return fmt.Sprintf("%d d", days)
	case hours > 0 && mins > 0:
		return fmt.Sprintf("%d h %d min", hours, mins)
	case hours > 0:
		return fmt.Sprintf("%d h", hours)
	}
	return fmt.Sprintf("%d min", mins)
}

// ExpiryFigures are an Expiry as the figures of contain's and inspect's
// events carry it (flat keys); the report reads them back to count down.
type ExpiryFigures struct {
	OldestExpiresAt        *time.Time `json:"oldest_expires_at,omitempty"`
	OldestExpiryUpperBound bool       `json:"oldest_expiry_upper_bound,omitempty"`
	OldestExpiryBasis      string     `json:"oldest_expiry_basis,omitempty"`
}

// ExpiryFiguresOf flattens e; nil (unknown) gives no figures.
func ExpiryFiguresOf(e *Expiry) ExpiryFigures {
	if e == nil {
		return ExpiryFigures{}
	}
	at := e.At.UTC()
	return ExpiryFigures{OldestExpiresAt: &at, OldestExpiryUpperBound: e.UpperBound, OldestExpiryBasis: e.Basis}
}
