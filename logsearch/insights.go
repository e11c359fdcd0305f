package logsearch

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
)

// Poll paces GetQueryResults: the first wait is Initial, each next one
// doubles up to Max, and after Timeout the query is stopped.
type Poll struct {
	Initial, Max, Timeout time.Duration
	// Sleep waits d or until ctx ends; nil is a real timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p Poll) withDefaults() Poll {
	if p.Initial <= 0 {
		p.Initial = 500 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = 5 * time.Second
	}
	if p.Timeout <= 0 {
		p.Timeout = 5 * time.Minute
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// insightsLimit is the most rows one query returns (the Insights maximum).
const insightsLimit = 10000

// maxQueryLen is the longest QueryString StartQuery accepts (10,000
// characters, per the CloudWatch Logs API reference): at about 37
// characters a MessageId, one query holds some 270 ids, fewer once the
// messages' request ids join them, so the ids are split across queries.
const maxQueryLen = 10000

// Queries returns the Logs Insights queries that together find the lines
// naming any of ids, each within StartQuery's length limit.
func Queries(ids []string) []string {
	var out []string
	var chunk []string
	for _, id := range ids {
		if len(chunk) > 0 && len(Query(append(chunk, id))) > maxQueryLen {
			out = append(out, Query(chunk))
			chunk = nil
		}
		chunk = append(chunk, id)
	}
	if len(chunk) > 0 {
		out = append(out, Query(chunk))
	}
	return out
}

// Query returns the Logs Insights query that finds the lines naming any of
// ids, oldest first. The ids are validated MessageIds (letters, digits, "-"
// and "_"), so they need no escaping inside the regular expression.
func Query(ids []string) string {
	return "fields @timestamp, @message, @logStream, @log, @ptr\n" +
		"| filter @message like /" + strings.Join(ids, "|") + "/\n" +
		"| sort @timestamp asc\n" +
		"| limit " + strconv.Itoa(insightsLimit)
}

// insightsHits runs one Insights query over all groups for all targets, in
// the union of their ranges, and gives each row to every target whose ID
// it contains and whose range holds it.
func insightsHits(ctx context.Context, c Client, targets []Wanted, opts Options) (map[string][]hit, bool, error) {
	ids := make([]string, 0, len(targets))
	var w Range
	for i, t := range targets {
		ids = append(ids, t.MessageID)
		if t.RequestID != "" {
			ids = append(ids, t.RequestID)
		}
		if i == 0 || t.Range.From.Before(w.From) {
			w.From = t.Range.From
		}
		if t.Range.To.After(w.To) {
			w.To = t.Range.To
		}
	}
	rows, truncated, err := insightsRows(ctx, c, Queries(ids), w, opts)
	if err != nil {
		return nil, false, err
	}
	hits, byReq := map[string][]hit{}, map[string][]hit{}
	for _, row := range rows {
		h := rowHit(row, opts.Groups)
		for _, t := range targets {
			switch {
			case !inRange(h.time, t.Range):
			case strings.Contains(h.message, t.MessageID) && len(hits[t.MessageID]) < maxHits:
				hits[t.MessageID] = append(hits[t.MessageID], h)
			case namesRequest(h.message, t.RequestID) && len(byReq[t.MessageID]) < maxHits:
				h.byRequest = true
				byReq[t.MessageID] = append(byReq[t.MessageID], h)
				h.byRequest = false
			}
		}
	}
	// The request id counts only for a message no line names.
	for id, hs := range byReq {
		if len(hits[id]) == 0 {
			hits[id] = hs
		}
	}
	return hits, truncated, nil
}

// insightsRows runs the queries one after another over the range and
// returns their rows; truncated is true when a query returned as many rows
// as Insights ever returns, so lines past them may exist unseen.
func insightsRows(ctx context.Context, c Client, queries []string, w Range, opts Options) ([][]types.ResultField, bool, error) {
	var rows [][]types.ResultField
	truncated := false
	for _, q := range queries {
		r, err := runQuery(ctx, c, &cloudwatchlogs.StartQueryInput{
			LogGroupNames: opts.Groups,
			QueryString:   aws.String(q),
			// Insights takes seconds: widen outward so the range's ends stay in.
			StartTime: aws.Int64(w.From.Unix()),
			EndTime:   aws.Int64(w.To.Add(time.Second - 1).Unix()),
		}, opts.Poll.withDefaults())
		if err != nil {
			return nil, false, err
		}
		truncated = truncated || len(r) >= insightsLimit
		rows = append(rows, r...)
	}
	return rows, truncated, nil
}

func inRange(t time.Time, w Range) bool {
	return !t.Before(w.From) && !t.After(w.To)
}

// runQuery starts a query and polls its results, waiting longer each time,
// until it is Complete. A query that fails, or outlives the poll's Timeout
// or ctx, is stopped and reported.
func runQuery(ctx context.Context, c Client, in *cloudwatchlogs.StartQueryInput, p Poll) ([][]types.ResultField, error) {
	start, err := c.StartQuery(ctx, in)
	if isNotFound(err) {
		return nil, &GroupNotFoundError{Group: strings.Join(in.LogGroupNames, ", "), Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("start Logs Insights query: %w", err)
	}
	id := aws.ToString(start.QueryId)
	deadline := time.Now().Add(p.Timeout)
	wait := p.Initial
	for {
		out, err := c.GetQueryResults(ctx, &cloudwatchlogs.GetQueryResultsInput{QueryId: aws.String(id)})
		if err != nil {
			stopQuery(c, id)
			return nil, fmt.Errorf("query %s (Logs Insights): %w", id, err)
		}
		switch out.Status {
		case types.QueryStatusComplete:
			return out.Results, nil
		case types.QueryStatusScheduled, types.QueryStatusRunning:
		default:
			return nil, fmt.Errorf("query %s (Logs Insights) ended %s", id, out.Status)
		}
		if time.Now().After(deadline) {
			stopQuery(c, id)
			return nil, fmt.Errorf("query %s (Logs Insights) still %s after %s: stopped it; narrow the window or the groups", id, out.Status, p.Timeout)
		}
		if err := p.Sleep(ctx, wait); err != nil {
			stopQuery(c, id)
			return nil, err
		}
		wait = min(wait*2, p.Max)
	}
}

// stopQuery stops a query we gave up on, so it stops costing; a failure to
// stop is not worth reporting over the reason we gave up.
func stopQuery(c Client, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.StopQuery(ctx, &cloudwatchlogs.StopQueryInput{QueryId: aws.String(id)})
}

// rowHit reads one result row. @log is "account-id:group-name" on AWS (the
// bare name on some emulators); it is mapped back to the group as given.
func rowHit(row []types.ResultField, groups []string) hit {
	var h hit
	for _, f := range row {
		v := aws.ToString(f.Value)
		switch aws.ToString(f.Field) {
		case "@timestamp":
			h.time = parseInsightsTime(v)
		case "@message":
			h.message = v
		case "@logStream":
			h.stream = v
		case "@log":
			h.group = v
		}
	}
	for _, g := range groups {
		if h.group == g || strings.HasSuffix(h.group, ":"+g) {
			h.group = g
			return h
		}
	}
	if len(groups) == 1 {
		h.group = groups[0]
	}
	return h
}

// parseInsightsTime reads @timestamp: "2006-01-02 15:04:05.000" UTC on AWS,
// epoch milliseconds on some emulators.
func parseInsightsTime(v string) time.Time {
	if t, err := time.Parse("2006-01-02 15:04:05.000", v); err == nil {
		return t.UTC()
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC()
	}
	return time.Time{}
}
