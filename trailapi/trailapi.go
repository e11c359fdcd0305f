// Package trailapi is mfdlq's CloudTrail layer: the account's event history
// in one region, read through LookupEvents as its API reference allows —
// one lookup attribute per call, at most 50 events a page with NextToken,
// two calls a second per account and region (paced here, throttling
// retried), 90 days of history. It reads what it is asked to and judges
// nothing: the changes step decides what an event means.
package trailapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail/types"
	"golang.org/x/time/rate"

	"github.com/mfdlq/mfdlq/awserr"
)

// API limits of LookupEvents, from its API reference.
const (
	// PageSize is LookupEvents' largest MaxResults.
	PageSize = 50
	// CallsPerSecond is the documented rate: two lookups a second per
	// account and region; more are throttled.
	CallsPerSecond = 2
	// History is how far back the event history reaches.
	History = 90 * 24 * time.Hour
)

// Client is the CloudTrail call mfdlq makes, with the SDK's signature so
// *cloudtrail.Client satisfies it.
type Client interface {
	LookupEvents(ctx context.Context, in *cloudtrail.LookupEventsInput, optFns ...func(*cloudtrail.Options)) (*cloudtrail.LookupEventsOutput, error)
}

var _ Client = (*cloudtrail.Client)(nil)

// paceInterval spaces the lookups a little wider than the documented
// 500 ms: a call delayed on its way out must not land in the same
// server-side second as the next one.
const paceInterval = 550 * time.Millisecond

// Pacer spaces calls: Wait returns when the next call may go.
type Pacer interface {
	Wait(ctx context.Context) error
}

var (
	pacersMu sync.Mutex
	pacers   = map[string]*rate.Limiter{}
)

// PacerFor is the process's one pacer for an account and region: the
// documented limit is per account and region, however many lookups this
// process makes there.
func PacerFor(account, region string) Pacer {
	pacersMu.Lock()
	defer pacersMu.Unlock()
	k := account + "/" + region
	if p, ok := pacers[k]; ok {
		return p
	}
	p := rate.NewLimiter(rate.Every(paceInterval), 1)
	pacers[k] = p
	return p
}

// Resource is a resource an event names, as CloudTrail lists it.
type Resource struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// Event is one event of the history, with what the changes step reads.
type Event struct {
	ID        string     `json:"event_id"`
	Name      string     `json:"event_name"` // as CloudTrail writes it: UpdateFunctionCode20150331v2
	Source    string     `json:"event_source"`
	Time      time.Time  `json:"event_time"`
	User      string     `json:"username"`
	ReadOnly  bool       `json:"read_only"`
	Resources []Resource `json:"resources"`
	// Parameters are the string values of the request's top-level
	// parameters (functionName, queueUrl, roleName, keyId …), bounded:
	// they name what the call changed when Resources does not.
	Parameters map[string]string `json:"request_parameters,omitempty"`
}

// Lookup is one LookupEvents query: a time range and at most one
// attribute (the API takes one).
type Lookup struct {
	Key        types.LookupAttributeKey // "" for none
	Value      string
	Start, End time.Time
	// MaxEvents stops the reading after this many events (0: no bound);
	// Truncated then says so.
	MaxEvents int
}

// Page is what Lookup reports after each page, for progress.
type Page func(events, pages int)

// Result is the events read, oldest first.
type Result struct {
	Events    []Event
	Pages     int
	Retries   int  // throttled calls retried
	Truncated bool // MaxEvents reached before the last page
}

// Retry bounds the retries of a throttled call: backoff doubles from
// Backoff up to Attempts calls in all.
type Retry struct {
	Attempts int
	Backoff  time.Duration
	Sleep    func(ctx context.Context, d time.Duration) error // nil: a timer
}

// DefaultRetry: five attempts, 1 s, 2 s, 4 s, 8 s apart.
var DefaultRetry = Retry{Attempts: 5, Backoff: time.Second}

// LookupAll reads every page of l, pacing each call through p and
// retrying throttled calls, and returns the events oldest first.
func LookupAll(ctx context.Context, c Client, p Pacer, r Retry, l Lookup, progress Page) (Result, error) {
	in := &cloudtrail.LookupEventsInput{StartTime: aws.Time(l.Start), EndTime: aws.Time(l.End), MaxResults: aws.Int32(PageSize)}
	if l.Key != "" {
		in.LookupAttributes = []types.LookupAttribute{{AttributeKey: l.Key, AttributeValue: aws.String(l.Value)}}
	}
	var res Result
	for {
		out, err := call(ctx, c, p, r, in, &res)
		if err != nil {
			return res, err
		}
		res.Pages++
		for _, e := range out.Events {
			res.Events = append(res.Events, fromSDK(e))
		}
		if progress != nil {
			progress(len(res.Events), res.Pages)
		}
		if aws.ToString(out.NextToken) == "" {
			break
		}
		if l.MaxEvents > 0 && len(res.Events) >= l.MaxEvents {
			res.Truncated = true
			break
		}
		in.NextToken = out.NextToken
	}
	sort.SliceStable(res.Events, func(i, j int) bool { return res.Events[i].Time.Before(res.Events[j].Time) })
	return res, nil
}

func call(ctx context.Context, c Client, p Pacer, r Retry, in *cloudtrail.LookupEventsInput, res *Result) (*cloudtrail.LookupEventsOutput, error) {
	wait := r.Backoff
	for attempt := 1; ; attempt++ {
		if err := p.Wait(ctx); err != nil {
			return nil, err
		}
		out, err := c.LookupEvents(ctx, in)
		if err == nil {
			return out, nil
		}
		if !awserr.Throttled(err) || attempt >= r.Attempts {
			return nil, fmt.Errorf("cloudtrail lookup-events: %w", err)
		}
		res.Retries++
		if err := sleep(ctx, r, wait); err != nil {
			return nil, err
		}
		wait *= 2
	}
}

func sleep(ctx context.Context, r Retry, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// maxParam bounds one request parameter's value: a name or an ARN, never a
// policy document.
const maxParam = 512

func fromSDK(e types.Event) Event {
	ev := Event{
		ID: aws.ToString(e.EventId), Name: aws.ToString(e.EventName), Source: aws.ToString(e.EventSource),
		Time: aws.ToTime(e.EventTime).UTC(), User: aws.ToString(e.Username),
		ReadOnly: strings.EqualFold(aws.ToString(e.ReadOnly), "true"), Resources: []Resource{},
	}
	for _, r := range e.Resources {
		ev.Resources = append(ev.Resources, Resource{Type: aws.ToString(r.ResourceType), Name: aws.ToString(r.ResourceName)})
	}
	ev.Parameters = parameters(aws.ToString(e.CloudTrailEvent))
	return ev
}

// parameters reads the string values of requestParameters' top-level keys
// from the event's JSON record; anything else (documents, lists) is left.
func parameters(record string) map[string]string {
	if record == "" {
		return nil
	}
	var rec struct {
		RequestParameters map[string]json.RawMessage `json:"requestParameters"`
	}
	if json.Unmarshal([]byte(record), &rec) != nil {
		return nil
	}
	out := map[string]string{}
	for k, raw := range rec.RequestParameters {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" && len(s) <= maxParam && len(out) < 32 {
			out[k] = s
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
