// Package inventory lists every dead-letter queue of an account and region
// with what an on-call engineer needs to pick the one to look at first: its
// depth, the age of its oldest message and when that message expires, its
// source queues, the Lambda functions that read them, whether an alarm
// watches it, and whether its retention is the classic pitfall. It is read
// only: it never receives a message.
package inventory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Options shape one listing.
type Options struct {
	// Prefix keeps the queues whose names start with it (ListQueues'
	// QueueNamePrefix); sources outside it are found with
	// ListDeadLetterSourceQueues.
	Prefix string
	// Concurrency bounds the GetQueueAttributes calls in flight (default 8).
	Concurrency int
	// Now is the clock (UTC).
	Now func() time.Time
	// AgeWindow is how far back the age of oldest is read (default 1 h):
	// SQS publishes it every minute for a queue that holds messages.
	AgeWindow time.Duration
}

// Inventory is one region's listing.
type Inventory struct {
	Region string `json:"region"`
	DLQs   []DLQ  `json:"dlqs"`
	// Warnings are what could not be read (CloudWatch, Lambda or alarms
	// refused): the listing is complete, those fields are unknown.
	Warnings []string `json:"warnings"`
	Calls    Calls    `json:"-"`
}

// DLQ is one dead-letter queue: a queue some queue's RedrivePolicy names.
type DLQ struct {
	Queue     string `json:"queue"`
	URL       string `json:"url"`
	ARN       string `json:"arn"`
	Account   string `json:"account"`
	Region    string `json:"region"`
	FIFO      bool   `json:"fifo"`
	Visible   int64  `json:"visible"`
	InFlight  int64  `json:"in_flight"`
	Delayed   int64  `json:"delayed"`
	Retention int64  `json:"retention_seconds"`
	// AgeOfOldest is CloudWatch's latest ApproximateAgeOfOldestMessage
	// (seconds), read at AgeReadAt; nil when CloudWatch has no data.
	AgeOfOldest *float64   `json:"age_of_oldest_seconds"`
	AgeReadAt   *time.Time `json:"age_read_at"`
	// Expiry is when the oldest message expires; nil without an age.
	Expiry *sqsapi.Expiry `json:"expiry"`
	// ExpiresIn is the seconds left at the listing's time (negative: due).
	ExpiresIn *int64 `json:"expires_in_seconds"`
	// ExpiresWithin is, when CloudWatch has no age but the DLQ holds
	// messages, the bound that holds anyway: a message present now is
	// deleted at the latest one retention period from now (seconds). Nil
	// when the expiry is known or the DLQ is empty.
	ExpiresWithin *int64   `json:"expires_within_seconds"`
	Sources       []Source `json:"sources"`
	// Functions are the Lambda functions reading any source;
	// FunctionsKnown is false when the event source mappings could not be
	// read (Functions is then empty, not "none").
	Functions      []string `json:"functions"`
	FunctionsKnown bool     `json:"functions_known"`
	// Alarms are the CloudWatch alarms on the DLQ's visible messages;
	// AlarmsKnown is false when the alarms could not be read.
	Alarms      []string `json:"alarms"`
	AlarmsKnown bool     `json:"alarms_known"`
	// RetentionPitfall: a standard DLQ keeps messages no longer than a
	// source does (a standard queue counts retention from the first
	// enqueue, so a message arrives already aged and may expire almost at
	// once). Never on a FIFO DLQ: SQS resets a message's enqueue time when
	// it moves to a FIFO DLQ, whose retention then counts from the move.
	RetentionPitfall bool `json:"retention_pitfall"`
}

// Source is a queue whose RedrivePolicy names the DLQ.
type Source struct {
	Queue           string   `json:"queue"`
	URL             string   `json:"url"`
	ARN             string   `json:"arn"`
	Retention       int64    `json:"retention_seconds"`
	MaxReceiveCount int      `json:"max_receive_count"`
	Functions       []string `json:"functions"`
}

// Total is every message the DLQ holds.
func (d DLQ) Total() int64 { return d.Visible + d.InFlight + d.Delayed }

// Clients are the AWS calls of one region's listing.
type Clients struct {
	SQS     SQS
	Metrics Metrics
	Alarms  Alarms
	Lambda  Lambda
}

// Take lists the DLQs c reaches, in urgency order (see Sort).
func Take(ctx context.Context, c Clients, o Options) (*Inventory, error) {
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.AgeWindow <= 0 {
		o.AgeWindow = time.Hour
	}
	if o.Now == nil {
		o.Now = func() time.Time { return time.Now().UTC() }
	}
	calls := &counter{}
	c = calls.wrap(c)
	s := &scan{c: c, o: o}
	dlqs, err := s.run(ctx)
	if err != nil {
		return nil, err
	}
	inv := &Inventory{DLQs: dlqs, Warnings: []string{}}
	inv.warn(readAges(ctx, c.Metrics, dlqs, o))
	inv.warn(readFunctions(ctx, c.Lambda, dlqs))
	inv.warn(readAlarms(ctx, c.Alarms, dlqs))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	now := o.Now()
	for i := range inv.DLQs {
		inv.DLQs[i].settle(now)
	}
	Sort(inv.DLQs)
	inv.Calls = calls.snapshot()
	return inv, nil
}

func (inv *Inventory) warn(err error) {
	if err != nil {
		inv.Warnings = append(inv.Warnings, err.Error())
	}
}

// settle fills what derives from the rest: the seconds left, the pitfall,
// and empty lists where nil would mean "unknown" but the answer is none.
func (d *DLQ) settle(now time.Time) {
	d.ExpiresIn, d.ExpiresWithin = nil, nil
	switch {
	case d.Expiry != nil:
		left := int64(d.Expiry.In(now) / time.Second)
		d.ExpiresIn = &left
	case d.Total() > 0:
		within := d.Retention
		d.ExpiresWithin = &within
	}
	d.RetentionPitfall = false
	for _, s := range d.Sources {
		if !d.FIFO && d.Retention <= s.Retention {
			d.RetentionPitfall = true
		}
	}
	if d.Sources == nil {
		d.Sources = []Source{}
	}
	if d.Functions == nil {
		d.Functions = []string{}
	}
	if d.Alarms == nil {
		d.Alarms = []string{}
	}
	for i := range d.Sources {
		if d.Sources[i].Functions == nil {
			d.Sources[i].Functions = []string{}
		}
	}
}

// Sort puts the DLQs in urgency order: those holding messages first, the
// soonest expiry first (those without a known expiry after them, deepest
// first); the empty ones last, by name. The DLQs of several accounts and
// regions sort as one fleet: the most urgent of them all comes first.
func Sort(dlqs []DLQ) {
	sort.SliceStable(dlqs, func(i, j int) bool {
		a, b := &dlqs[i], &dlqs[j]
		if (a.Total() > 0) != (b.Total() > 0) {
			return a.Total() > 0
		}
		if a.Total() > 0 {
			if (a.Expiry != nil) != (b.Expiry != nil) {
				return a.Expiry != nil
			}
			if a.Expiry != nil && !a.Expiry.At.Equal(b.Expiry.At) {
				return a.Expiry.At.Before(b.Expiry.At)
			}
			if a.Total() != b.Total() {
				return a.Total() > b.Total()
			}
		}
		if a.Queue != b.Queue {
			return a.Queue < b.Queue
		}
		if a.Region != b.Region {
			return a.Region < b.Region
		}
		return a.Account < b.Account
	})
}

// Summary is the listing in one line and its figures.
type Summary struct {
	DLQs     int    `json:"dlqs"`
	NonEmpty int    `json:"non_empty"`
	Messages int64  `json:"messages"`
	Soonest  *DLQ   `json:"-"`
	Text     string `json:"text"`
	// SoonestQueue and SoonestExpiresIn name the DLQ whose oldest message
	// expires first ("" and nil when no expiry is known).
	SoonestQueue     string `json:"soonest_queue"`
	SoonestRegion    string `json:"soonest_region"`
	SoonestExpiresIn *int64 `json:"soonest_expires_in_seconds"`
}

// Summarize sums up dlqs (in any order) at now.
func Summarize(dlqs []DLQ, now time.Time) Summary {
	s := Summary{DLQs: len(dlqs)}
	for i := range dlqs {
		d := &dlqs[i]
		if d.Total() == 0 {
			continue
		}
		s.NonEmpty++
		s.Messages += d.Total()
		if d.Expiry != nil && (s.Soonest == nil || d.Expiry.At.Before(s.Soonest.Expiry.At)) {
			s.Soonest = d
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s, ", Thousands(int64(len(dlqs))), plural.Noun(len(dlqs), "DLQ"))
	switch {
	case s.NonEmpty == 0:
		b.WriteString("none holds a message")
	default:
		fmt.Fprintf(&b, "%s non-empty, %s %s", Thousands(int64(s.NonEmpty)), Thousands(s.Messages), plural.Noun(int(s.Messages), "message"))
	}
	switch {
	case s.Soonest != nil:
		s.SoonestQueue, s.SoonestRegion = s.Soonest.Queue, s.Soonest.Region
		left := s.Soonest.Expiry.In(now)
		secs := int64(left / time.Second)
		s.SoonestExpiresIn = &secs
		if left <= 0 {
			fmt.Fprintf(&b, ", the oldest is due to expire (%s)", s.Soonest.Queue)
		} else {
			fmt.Fprintf(&b, ", the soonest expires in %s (%s)", sqsapi.Human(left), s.Soonest.Queue)
		}
	case s.NonEmpty > 0:
		b.WriteString(", expiry unknown (no CloudWatch age of oldest)")
	}
	s.Text = b.String()
	return s
}

// Thousands writes n with comma separators: 1,204.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// fromQueue is the DLQ part a queue's attributes give.
func fromQueue(q *sqsapi.Queue) DLQ {
	return DLQ{
		Queue: q.Name, URL: q.URL, ARN: q.ARN, Account: q.Account, Region: q.Region, FIFO: q.FIFO,
		Visible: q.Depth.Visible, InFlight: q.Depth.InFlight, Delayed: q.Depth.Delayed,
		Retention: int64(q.Retention / time.Second),
	}
}
