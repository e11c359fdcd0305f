package verify

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"

	"github.com/mfdlq/mfdlq/untrusted"
)

// LogsAPI is the CloudWatch Logs call verify reads a function's own lines
// with, with the SDK's signature so *cloudwatchlogs.Client satisfies it.
type LogsAPI interface {
	FilterLogEvents(ctx context.Context, in *cloudwatchlogs.FilterLogEventsInput, optFns ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.FilterLogEventsOutput, error)
}

var _ LogsAPI = (*cloudwatchlogs.Client)(nil)

// maxLogPages bounds one look's read of a function's log group: a busy
// function's lines beyond it leave the unseen events not proven, said.
const maxLogPages = 100

// eventLinesPattern asks CloudWatch Logs for the lines that date and judge
// an invocation: Lambda's platform lines (START, END, REPORT RequestId:
// in text; "platform.*" records in JSON), a timeout, and a runtime's
// error object or trace. A server that ignores the pattern (moto) returns
// every line: the parse below reads only what it knows.
const eventLinesPattern = `?"RequestId:" ?"platform." ?"Task timed out" ?errorType ?"Invoke Error" ?Traceback`

// EventsRun is what a function's logs showed of the redriven events,
// found by the request ids the journal holds for each Invoke (Lambda
// keeps an asynchronous event's request id across its retries).
type EventsRun struct {
	Group string `json:"log_group"`
	// Sought is how many request ids the journal holds: fewer than moved
	// (an older journal) cannot prove every event ran; a compacted journal
	// seeks every moved event (EventQuery).
	Sought int `json:"sought"`
	// Ran is how many ended with a REPORT line after any failure: run, and
	// (last) without one.
	Ran int `json:"ran"`
	// Failed are the request ids whose last attempt failed (a timeout, an
	// error object, a REPORT with Status error or timeout).
	Failed []string `json:"failed"`
	// FailedLine is the first failing line seen, bounded: the evidence.
	FailedLine string `json:"failed_line,omitempty"`
	// Unseen is how many have no line yet.
	Unseen int `json:"unseen"`
	// Err says why the logs could not be read (nothing was judged then);
	// Capped that maxLogPages ran out first.
	Err    string `json:"error,omitempty"`
	Capped bool   `json:"capped,omitempty"`
}

// requestIDPattern is a Lambda request id (a UUID) in a line.
var requestIDPattern = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// eventState is one request id's attempts as its lines tell them.
type eventState struct {
	lastFail, lastOK time.Time
	failLine         string
}

// ReadEvents reads group's lines from from to to and tells, for each of
// ids (the redriven Invokes' request ids), whether it ran, failed or has
// no line yet. A line is an event's when it names its request id, or sits
// between that id's START and its END/REPORT in one log stream (one
// invocation at a time per execution environment: a Python trace names no
// id). A failure is a timeout ("Task timed out"), a runtime's error object
// ("errorType", Node's "Invoke Error", Python's "[ERROR] Type: …", its
// trace after it; a trace under a handled error is not one) or a REPORT
// with Status error or timeout; a line the function logs at ERROR level
// is its own business. The last attempt decides: a failure followed by a
// clean REPORT is a retry that ran.
func ReadEvents(ctx context.Context, c LogsAPI, group string, q EventQuery, from, to time.Time) *EventsRun {
	run := &EventsRun{Group: group, Sought: max(q.Sought, len(q.IDs)), Failed: []string{}}
	if run.Sought == 0 {
		return run // nothing to look for (a journal without request ids)
	}
	events, ok := readEventLines(ctx, c, run, from, to)
	if !ok {
		return run
	}
	r := newInvocations(q)
	for _, ev := range events {
		r.read(ev)
	}
	r.unreported()
	r.tally(run)
	return run
}

// readEventLines reads run.Group's lines from from to to that
// eventLinesPattern asks for, each stream in time order, up to
// maxLogPages (then run.Capped). false: they could not be read (run.Err).
func readEventLines(ctx context.Context, c LogsAPI, run *EventsRun, from, to time.Time) ([]types.FilteredLogEvent, bool) {
	var events []types.FilteredLogEvent
	p := cloudwatchlogs.NewFilterLogEventsPaginator(c, &cloudwatchlogs.FilterLogEventsInput{
		LogGroupName: aws.String(run.Group), FilterPattern: aws.String(eventLinesPattern),
		StartTime: aws.Int64(from.UnixMilli()), EndTime: aws.Int64(to.UnixMilli()),
	})
	for page := 0; p.HasMorePages(); page++ {
		if page == maxLogPages {
			run.Capped = true
			break
		}
		out, err := p.NextPage(ctx)
		var missing *types.ResourceNotFoundException
		if errors.As(err, &missing) {
			// No group yet: the function never wrote a line, so no
			// redriven event has run (Lambda creates it on the first).
			break
		}
		if err != nil {
			run.Err = fmt.Sprintf("read log group %s: %v", run.Group, err)
			return nil, false
		}
		events = append(events, out.Events...)
	}
	// Each stream in time order: a stream is one execution environment,
	// running one invocation at a time.
	sort.SliceStable(events, func(i, j int) bool {
		a, b := events[i], events[j]
		if sa, sb := aws.ToString(a.LogStreamName), aws.ToString(b.LogStreamName); sa != sb {
			return sa < sb
		}
		return aws.ToInt64(a.Timestamp) < aws.ToInt64(b.Timestamp)
	})
	return events, true
}

// invocation is one run of an event (Lambda retries an asynchronous one)
// in its stream, from START to REPORT: it failed when its REPORT says so
// or a failure line sits inside it.
type invocation struct {
	id     string
	start  time.Time
	failed string // its first failure line
}

// invocations reads the sorted lines of a group into each sought request
// id's eventState.
type invocations struct {
	q    EventQuery
	want map[string]*eventState // lower-case request id → its attempts
	ids  []string               // the sought ids, then the ones Ours recognised
	open map[string]*invocation // stream → the invocation running in it
}

func newInvocations(q EventQuery) *invocations {
	r := &invocations{q: q, want: map[string]*eventState{}, ids: append([]string{}, q.IDs...), open: map[string]*invocation{}}
	for _, id := range r.ids {
		r.want[strings.ToLower(id)] = &eventState{}
	}
	return r
}

// idIn is the first sought request id line names (lower case), or "".
// An id Ours recognises becomes sought.
func (r *invocations) idIn(line string) string {
	for _, m := range requestIDPattern.FindAllString(line, 4) {
		if _, ok := r.want[strings.ToLower(m)]; !ok && r.q.Ours != nil && r.q.Ours(m) {
			r.want[strings.ToLower(m)] = &eventState{}
			r.ids = append(r.ids, m)
		}
		if _, ok := r.want[strings.ToLower(m)]; ok {
			return strings.ToLower(m)
		}
	}
	return ""
}

// read takes one line: a START opens its stream's invocation, a REPORT
// closes it, a failure line fails the invocation it sits in (or, outside
// any, the id it names).
func (r *invocations) read(ev types.FilteredLogEvent) {
	line, stream := aws.ToString(ev.Message), aws.ToString(ev.LogStreamName)
	at := time.UnixMilli(aws.ToInt64(ev.Timestamp))
	id := r.idIn(line)
	if isStart(line) {
		r.open[stream] = &invocation{id: id, start: at} // id "": another event, its lines are not ours
		return
	}
	a := r.open[stream]
	if id == "" && a != nil {
		id = a.id
	}
	st := r.want[id]
	if st == nil {
		return
	}
	inside := a != nil && a.id == id
	switch {
	case isReport(line):
		switch {
		case failedReport(line):
			st.fail(at, line)
		case inside && a.failed != "":
			st.fail(at, a.failed)
		default:
			st.lastOK = at
		}
		delete(r.open, stream)
	case failureLine(line) && inside:
		if a.failed == "" {
			a.failed = line
		}
	case failureLine(line):
		st.fail(at, line)
	}
}

// unreported fails the invocations that failed and have no REPORT yet (their
// lines still on their way): they failed all the same.
func (r *invocations) unreported() {
	for _, a := range r.open {
		if st := r.want[a.id]; st != nil && a.failed != "" && st.lastOK.IsZero() {
			st.fail(a.start, a.failed)
		}
	}
}

// tally counts each id as failed, ran or unseen into run: the last
// attempt decides.
func (r *invocations) tally(run *EventsRun) {
	for _, id := range r.ids {
		st := r.want[strings.ToLower(id)]
		switch {
		case !st.lastFail.IsZero() && !st.lastOK.After(st.lastFail):
			run.Failed = append(run.Failed, id)
			if run.FailedLine == "" {
				run.FailedLine = untrusted.Shorten(strings.TrimSpace(st.failLine), 300)
			}
		case !st.lastOK.IsZero():
			run.Ran++
		default:
			run.Unseen++
		}
	}
	// The digests' events no line named are unseen too.
	run.Unseen += max(run.Sought-len(r.ids), 0)
}

// fail records a failed attempt at at; the first failure line is the
// evidence.
func (st *eventState) fail(at time.Time, line string) {
	st.lastFail = at
	if st.failLine == "" {
		st.failLine = line
	}
}

// EventQuery is what ReadEvents looks for: the request ids the journal
// holds (IDs), and for a compacted journal, whose older sends are digests,
// Ours, which recognises any other of the move's request ids in a line,
// and Sought, how many the move made in all.
type EventQuery struct {
	IDs    []string
	Ours   func(requestID string) bool
	Sought int
}

func isStart(line string) bool {
	return strings.HasPrefix(line, "START RequestId:") || strings.Contains(line, `"type":"platform.start"`)
}

func isReport(line string) bool {
	return strings.HasPrefix(line, "REPORT RequestId:") || strings.Contains(line, `"type":"platform.report"`)
}

// failedReport is a REPORT of an attempt that failed: text REPORT lines
// end with "Status: error" or "Status: timeout"; JSON platform.report
// records carry "status" other than "success".
func failedReport(line string) bool {
	for _, s := range []string{"Status: error", "Status: timeout", `"status":"error"`, `"status":"timeout"`, `"status":"failure"`} {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// pythonUnhandled is the Python runtime's line for an unhandled exception,
// "[ERROR] ValueError: …" — the logging module's "[ERROR]\t<time>\t<id>\t…"
// is the function's own message, not a failure.
var pythonUnhandled = regexp.MustCompile(`^\[ERROR\] [A-Za-z_][\w.]*: `)

// failureLine is a runtime's report of a failed invocation. A Python
// trace alone is not one: logger.exception writes it under a handled
// error ("[ERROR]\t<time>\t<id>\t…\nTraceback …") in an invocation that
// then succeeds; the runtime's own report of an unhandled exception
// starts "[ERROR] Type: " (pythonUnhandled), its trace after it.
func failureLine(line string) bool {
	if pythonUnhandled.MatchString(line) {
		return true
	}
	for _, s := range []string{"Task timed out after", `"errorType"`, "Invoke Error"} {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// LogGroupOf is where Lambda writes a function's lines: its logging
// config's group when set (advanced logging controls), else
// /aws/lambda/<function name>.
func LogGroupOf(function, configured string) string {
	if configured != "" {
		return configured
	}
	return "/aws/lambda/" + function
}
