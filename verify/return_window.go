package verify

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// ReturnWindow is how long a redrive to a function, topic or bus must be
// watched before "nothing came back" means something: a redriven event
// that fails is back in the DLQ only after the target's documented
// retries. Lambda retries a failed asynchronous event (twice by default,
// waiting one then two minutes) and keeps a throttled one queued for up
// to its maximum event age (6 hours by default); an SNS topic's or
// EventBridge rule's subscriber queue fails a message over to its DLQ only
// after visibility timeout × maxReceiveCount. Until then verify says "not
// proven yet", never pass.
type ReturnWindow struct {
	// RetriesBy is when an event failing from its first attempt is back
	// at the latest: after Lambda's retries, or every subscriber queue's
	// delay + visibility timeout × (maxReceiveCount + 1).
	RetriesBy time.Time `json:"retries_by"`
	// MaxAgeBy is when an event Lambda keeps queued (throttled, or behind
	// a backlog) has reached its maximum event age; zero for a topic or
	// bus. Only an observation that the function ran every redriven event
	// (Invocations) without throttles releases the wait for it.
	MaxAgeBy time.Time `json:"max_age_by,omitzero"`
	// Parts say how RetriesBy and MaxAgeBy were made; RetriesWhy is the
	// one for RetriesBy.
	Parts      []string `json:"parts"`
	RetriesWhy string   `json:"retries_why"`
	// Unchecked is what the return window cannot cover: a subscriber whose
	// failures do not come back to this DLQ, one that is not a queue.
	Unchecked []string `json:"unchecked"`
	// Returning are the subscriber queues that fail back to this DLQ:
	// each look reads their depth, since a redriven message still in one
	// can fail back after the return window (a consumer that started late).
	Returning []Subscriber `json:"returning,omitempty"`
	// LogGroup is a function's log group (LogGroupOf): each look finds
	// the redriven events there by their request ids (ReadEvents).
	LogGroup string `json:"log_group,omitempty"`
}

// LambdaReturnWindow is the return window of a function with timeout, retries
// and maximum event age (its event invoke config, or Lambda's defaults),
// for events sent up to end.
func LambdaReturnWindow(end time.Time, timeout time.Duration, retries int, maxAge time.Duration, source string) *ReturnWindow {
	if timeout <= 0 {
		timeout = 3 * time.Second // Lambda's default timeout
	}
	// Each attempt up to the timeout, Lambda's waits of one and two
	// minutes before the retries, and a margin for the DLQ send.
	d := timeout*time.Duration(retries+1) + 30*time.Second
	if retries >= 1 {
		d += time.Minute
	}
	if retries >= 2 {
		d += 2 * time.Minute
	}
	w := &ReturnWindow{RetriesBy: end.Add(d), MaxAgeBy: end.Add(maxAge + timeout + 30*time.Second)}
	if w.MaxAgeBy.Before(w.RetriesBy) {
		w.MaxAgeBy = w.RetriesBy
	}
	w.RetriesWhy = fmt.Sprintf("Lambda retries a failed asynchronous event %d times (timeout %s each, waits of 1 and 2 minutes): a failing redriven event is back by %s",
		retries, timeout, clock(w.RetriesBy))
	w.Parts = []string{
		w.RetriesWhy,
		fmt.Sprintf("it keeps a throttled event for up to its maximum event age %s (%s): until %s unless every redriven event has run",
			maxAge, source, clock(w.MaxAgeBy)),
	}
	return w
}

// Subscriber is one queue subscribed to a redriven topic or bus: its
// delay, visibility timeout and redrive policy (as GetQueueAttributes
// answers).
type Subscriber struct {
	Queue           string
	URL             string
	Delay           time.Duration
	Visibility      time.Duration
	MaxReceiveCount int    // 0: no redrive policy
	DeadLetterARN   string // its redrive policy's DLQ
}

// SubscriberReturnWindow is the return window of a topic or bus whose
// subscriber queues fail messages over to dlqARN; others (another DLQ, no
// redrive policy, not a queue: unqueued) are listed as unchecked.
func SubscriberReturnWindow(end time.Time, subs []Subscriber, dlqARN string, unqueued []string) *ReturnWindow {
	w := &ReturnWindow{RetriesBy: end, Parts: []string{}, Unchecked: []string{}}
	for _, s := range subs {
		switch {
		case s.MaxReceiveCount == 0:
			w.Unchecked = append(w.Unchecked, fmt.Sprintf("that %s consumed the redriven messages: it has no redrive policy, so a failing message cycles in it until retention deletes it and never comes back to this DLQ", s.Queue))
			continue
		case s.DeadLetterARN != dlqARN:
			w.Unchecked = append(w.Unchecked, fmt.Sprintf("that %s consumed the redriven messages: its failures go to %s, not to this DLQ", s.Queue, s.DeadLetterARN))
			continue
		}
		w.Returning = append(w.Returning, s)
		by := end.Add(s.failsBackIn())
		w.Parts = append(w.Parts, fmt.Sprintf("subscriber %s fails a message back after its delay %s + visibility timeout %s × (maxReceiveCount %d + 1): by %s",
			s.Queue, s.Delay, s.Visibility, s.MaxReceiveCount, clock(by)))
		if by.After(w.RetriesBy) {
			w.RetriesBy = by
		}
	}
	w.RetriesWhy = strings.Join(w.Parts, "; ")
	for _, u := range unqueued {
		w.Unchecked = append(w.Unchecked, fmt.Sprintf("that %s handled the redriven messages: it is not a queue, and its failures are not read", u))
	}
	if len(subs) == 0 && len(unqueued) == 0 {
		w.Unchecked = append(w.Unchecked, "that anything received the redriven messages: no subscriber queue was found")
	}
	return w
}

// notYet is the reason of a look before the return window's end.
func notYet(until time.Time, why string) string {
	return fmt.Sprintf("not proven yet — look again after %s: %s", lookAgain(until), why)
}

// lookAgain is until rounded up to the minute, in UTC, so that "after
// HH:MM" is never early.
func lookAgain(until time.Time) string {
	t := until.UTC()
	if r := t.Truncate(time.Minute); !r.Equal(t) {
		t = r.Add(time.Minute)
	}
	return t.Format("15:04") + " UTC (" + t.Format("2006-01-02") + ")"
}

func clock(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// failsBackIn is how long after a message enters the queue it is back in
// the DLQ at the latest when every receive fails: its delay, and one
// visibility timeout per receive plus the one that moves it.
func (s Subscriber) failsBackIn() time.Duration {
	return s.Delay + s.Visibility*time.Duration(s.MaxReceiveCount+1)
}

// SubscriberDepth is one look at a returning subscriber queue.
type SubscriberDepth struct {
	Queue string `json:"queue"`
	sqsapi.Depth
}
