// Package logsearch finds a message's story in its consumer's logs: the log
// line that names its MessageId, the lines that follow it in the same stream
// (where the exception and stack trace usually are), the exception, and its
// error signature (signature.Of). It searches CloudWatch Logs — with
// FilterLogEvents for a few messages and one Logs Insights query for many —
// or a local export of the logs.
package logsearch

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"

	"github.com/mfdlq/mfdlq/signature"
)

// Client is every CloudWatch Logs call logsearch makes, with the SDK's own
// signatures so that *cloudwatchlogs.Client satisfies it as is.
type Client interface {
	FilterLogEvents(ctx context.Context, in *cloudwatchlogs.FilterLogEventsInput, optFns ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.FilterLogEventsOutput, error)
	GetLogEvents(ctx context.Context, in *cloudwatchlogs.GetLogEventsInput, optFns ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.GetLogEventsOutput, error)
	StartQuery(ctx context.Context, in *cloudwatchlogs.StartQueryInput, optFns ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.StartQueryOutput, error)
	GetQueryResults(ctx context.Context, in *cloudwatchlogs.GetQueryResultsInput, optFns ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.GetQueryResultsOutput, error)
	StopQuery(ctx context.Context, in *cloudwatchlogs.StopQueryInput, optFns ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.StopQueryOutput, error)
}

var _ Client = (*cloudwatchlogs.Client)(nil)

// Method is how the logs were searched.
type Method string

// The search methods. MethodAuto picks FilterLogEvents for up to FewIDs
// messages and one Insights query above that.
const (
	MethodAuto     Method = "auto"
	MethodFilter   Method = "filter"
	MethodInsights Method = "insights"
	MethodFile     Method = "file"
)

// FewIDs is the most messages searched with one FilterLogEvents scan each;
// above it one Logs Insights query over all of them is cheaper.
const FewIDs = 5

// MaxInsightsGroups is the most log groups one Insights query may name.
const MaxInsightsGroups = 50

// TimeLayout is how times are written in logs.json: RFC 3339, UTC, with
// milliseconds (CloudWatch's resolution).
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Range is a time range searched (logs.json keeps it under "window", its
// key from the start), both ends included.
type Range struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Wanted is one message to look for and the range its story should be in.
// RequestID is the Lambda request id its envelope carries (a Lambda DLQ's
// RequestID attribute, a destination record's requestContext.requestId):
// a function's log lines name it, not the MessageId, so it is searched for
// when the MessageId is not found.
type Wanted struct {
	MessageID string
	RequestID string
	Range     Range
}

// Record is what was found for one message: one entry of logs.json's
// messages. A message with no line in its range has Found false and empty
// location fields; classify reads Signature.
type Record struct {
	MessageID string   `json:"message_id"`
	Found     bool     `json:"found"`
	LogGroup  string   `json:"log_group"`
	LogStream string   `json:"log_stream"`
	Timestamp string   `json:"timestamp"`
	Lines     []string `json:"lines"`
	Exception string   `json:"exception"`
	Signature string   `json:"signature"`
	// Matches counts the log lines that named the message; Lines tell the
	// story of the latest one that led to an exception.
	Matches int   `json:"matches"`
	Range   Range `json:"window"`
	// MatchedBy is "request_id" when the lines were found by RequestID
	// because none named the MessageId ("" when by the MessageId).
	MatchedBy string `json:"matched_by,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

// Result is logs.json: every message searched, and where and how. (Not
// "Report": that word is report.md's alone.)
type Result struct {
	Method   Method   `json:"method"`
	Groups   []string `json:"groups"`
	LogFile  string   `json:"log_file,omitempty"`
	Range    Range    `json:"window"`
	Searched int      `json:"searched"`
	Found    int      `json:"found"`
	// Truncated is true when an Insights query returned its 10,000-row
	// maximum: lines past them were not read, and a message shown as not
	// found may have some.
	Truncated bool     `json:"truncated,omitempty"`
	Messages  []Record `json:"messages"`
}

// NotFound returns the IDs that had no line.
func (r *Result) NotFound() []string {
	ids := []string{}
	for _, m := range r.Messages {
		if !m.Found {
			ids = append(ids, m.MessageID)
		}
	}
	return ids
}

// Signatures maps each found message's MessageId to its error signature,
// computed from its exception when the record has none (a logs.json written
// by hand or by an older mfdlq): what classify groups by.
func (r *Result) Signatures() map[string]string {
	logged := make([]signature.Logged, len(r.Messages))
	for i, m := range r.Messages {
		logged[i] = signature.Logged{MessageID: m.MessageID, Found: m.Found, Exception: m.Exception, Signature: m.Signature}
	}
	return signature.ByMessage(logged)
}

// Options bound a CloudWatch Logs search.
type Options struct {
	Groups []string
	// Context is how many lines after the matching one are kept.
	Context int
	Method  Method
	// Poll paces GetQueryResults; zero values take the defaults.
	Poll Poll
}

// ErrTooManyGroups is an Insights search over more than MaxInsightsGroups.
var ErrTooManyGroups = errors.New("an Insights query takes at most 50 log groups")

// Search looks for each target's story in the log groups of opts.
func Search(ctx context.Context, c Client, targets []Wanted, opts Options) (Result, error) {
	// Checked here whatever the ids came from (--message-id, a --from file,
	// samples.jsonl, an envelope's request id): each goes into a filter
	// pattern or a query, and an id that could change one is never sent.
	for _, t := range targets {
		if !ValidID(t.MessageID) {
			return Result{}, &InvalidIDError{ID: t.MessageID}
		}
		if t.RequestID != "" && !ValidID(t.RequestID) {
			return Result{}, &InvalidIDError{ID: t.RequestID}
		}
	}
	if opts.Method == MethodAuto || opts.Method == "" {
		opts.Method = MethodFilter
		if len(targets) > FewIDs {
			opts.Method = MethodInsights
		}
	}
	rep := newResult(opts.Method, opts.Groups, targets)
	var (
		hits map[string][]hit
		err  error
	)
	switch opts.Method {
	case MethodInsights:
		if len(opts.Groups) > MaxInsightsGroups {
			return rep, ErrTooManyGroups
		}
		hits, rep.Truncated, err = insightsHits(ctx, c, targets, opts)
	default:
		hits, err = filterHits(ctx, c, targets, opts.Groups)
	}
	if err != nil {
		return rep, err
	}
	fetch := func(h hit) ([]string, error) { return contextLines(ctx, c, h, opts.Context) }
	ids := targetIDs(targets)
	for i, t := range targets {
		rec, err := story(hits[t.MessageID], len(hits[t.MessageID]), fetch, storyID(t, hits[t.MessageID]), ids)
		if err != nil {
			return rep, err
		}
		rep.set(i, byRequest(rec, t, hits[t.MessageID]))
	}
	return rep, nil
}

func targetIDs(targets []Wanted) []string {
	ids := make([]string, len(targets))
	for i, t := range targets {
		ids[i] = t.MessageID
	}
	return ids
}

func newResult(m Method, groups []string, targets []Wanted) Result {
	rep := Result{Method: m, Groups: append([]string{}, groups...), Searched: len(targets), Messages: make([]Record, len(targets))}
	for i, t := range targets {
		rep.Messages[i] = Record{MessageID: t.MessageID, Lines: []string{}, Range: t.Range}
		if i == 0 || t.Range.From.Before(rep.Range.From) {
			rep.Range.From = t.Range.From
		}
		if t.Range.To.After(rep.Range.To) {
			rep.Range.To = t.Range.To
		}
	}
	return rep
}

func (r *Result) set(i int, rec Record) {
	rec.MessageID, rec.Range = r.Messages[i].MessageID, r.Messages[i].Range
	if rec.Lines == nil {
		rec.Lines = []string{}
	}
	r.Messages[i] = rec
	if rec.Found {
		r.Found++
	}
}

// storyID is the ID whose line starts the target's story: its MessageId, or
// the Lambda request id when only that was found in the logs.
func storyID(t Wanted, hits []hit) string {
	if len(hits) > 0 && hits[0].byRequest {
		return t.RequestID
	}
	return t.MessageID
}

// byRequest marks a record whose lines were found by the target's request
// id.
func byRequest(rec Record, t Wanted, hits []hit) Record {
	if len(hits) > 0 && hits[0].byRequest {
		rec.MatchedBy, rec.RequestID = "request_id", t.RequestID
	}
	return rec
}

// hit is one log line that names a message.
type hit struct {
	group, stream string
	time          time.Time
	message       string
	byRequest     bool // it names the target's RequestID, not its MessageId
	// lines are the hit's line and those after it, when already known
	// (a local file); CloudWatch hits fetch theirs.
	lines []string
}

// maxHits bounds the lines kept per message: a message retried many times
// names itself on each attempt, and the story is the same.
const maxHits = 20

// maxStories is how many hits, latest first, get their context fetched while
// looking for one followed by an exception.
const maxStories = 3

// story turns a message's hits into its record: of the latest maxStories
// hits, the latest whose following lines hold an exception, else the latest.
// fetch returns a hit's line and the lines after it.
// id is the message's MessageId, others the other messages searched for:
// where their lines begin, this story ends.
func story(hits []hit, matches int, fetch func(hit) ([]string, error), id string, others []string) (Record, error) {
	rec := Record{Matches: matches}
	if len(hits) == 0 {
		return rec, nil
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].time.Before(hits[j].time) })
	var latest Record
	for n := 0; n < maxStories && n < len(hits); n++ {
		h := hits[len(hits)-1-n]
		lines, err := fetch(h)
		if err != nil {
			return rec, err
		}
		r := buildRecord(h, lines, boundsOf(id, others, h.message))
		r.Matches = matches
		if r.Exception != "" {
			return r, nil
		}
		if n == 0 {
			latest = r
		}
	}
	return latest, nil
}

// buildRecord keeps the lines of one story up to where another request's
// or message's lines begin, and names its exception and signature.
func buildRecord(h hit, lines []string, b bounds) Record {
	lines = trimStory(lines, b)
	exc := Exception(lines)
	r := Record{
		Found: true, LogGroup: h.group, LogStream: h.stream,
		Lines: lines, Exception: exc, Signature: signature.Of(exc),
	}
	if !h.time.IsZero() {
		r.Timestamp = h.time.UTC().Format(TimeLayout)
	}
	return r
}
