package logsearch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
)

// filterHits scans each group for each target with FilterLogEvents and the
// quoted MessageId as the filter pattern (an exact phrase: the dashes of a
// MessageId would otherwise split it into terms), over the target's own
// range, following NextToken until the range is done or maxHits lines
// named the message. A target no line names is searched again by its
// RequestID when it has one.
func filterHits(ctx context.Context, c Client, targets []Wanted, groups []string) (map[string][]hit, error) {
	hits := map[string][]hit{}
	for _, t := range targets {
		ids := []string{t.MessageID}
		if t.RequestID != "" {
			ids = append(ids, t.RequestID)
		}
		for n, id := range ids {
			for _, g := range groups {
				found, err := filterGroup(ctx, c, g, id, n > 0, t.Range, maxHits-len(hits[t.MessageID]))
				if err != nil {
					return nil, err
				}
				for i := range found {
					found[i].byRequest = n > 0
				}
				hits[t.MessageID] = append(hits[t.MessageID], found...)
			}
			if len(hits[t.MessageID]) > 0 {
				break
			}
		}
	}
	return hits, nil
}

// filterGroup finds the lines of group naming id in w; a request id
// (byRequest) counts only as a whole token (namesRequest).
func filterGroup(ctx context.Context, c Client, group, id string, byRequest bool, w Range, limit int) ([]hit, error) {
	if limit <= 0 {
		return nil, nil
	}
	in := &cloudwatchlogs.FilterLogEventsInput{
		LogGroupName:  aws.String(group),
		FilterPattern: aws.String(strconv.Quote(id)),
		StartTime:     aws.Int64(w.From.UnixMilli()),
		EndTime:       aws.Int64(w.To.UnixMilli()),
	}
	var found []hit
	p := cloudwatchlogs.NewFilterLogEventsPaginator(c, in)
	for p.HasMorePages() && len(found) < limit {
		out, err := p.NextPage(ctx)
		if isNotFound(err) {
			return found, &GroupNotFoundError{Group: group, Err: err}
		}
		if err != nil {
			return found, fmt.Errorf("search log group %s for %s: %w", group, id, err)
		}
		for _, ev := range out.Events {
			if len(found) == limit {
				break
			}
			// Only a line that names the message starts its story, even
			// when the server returns more than the pattern asked for (one
			// local AWS ignores filterPattern and returns every event).
			if msg := aws.ToString(ev.Message); !strings.Contains(msg, id) || byRequest && !namesRequest(msg, id) {
				continue
			}
			found = append(found, hit{
				group: group, stream: aws.ToString(ev.LogStreamName),
				time: time.UnixMilli(aws.ToInt64(ev.Timestamp)).UTC(), message: aws.ToString(ev.Message),
			})
		}
	}
	return found, nil
}

// GroupNotFoundError is a log group that does not exist (in this account
// and region).
type GroupNotFoundError struct {
	Group string
	Err   error
}

func (e *GroupNotFoundError) Error() string { return "log group " + e.Group + " not found" }
func (e *GroupNotFoundError) Unwrap() error { return e.Err }

func isNotFound(err error) bool {
	var nf *types.ResourceNotFoundException
	return errors.As(err, &nf)
}

// sameMillisecond is how many events sharing the hit's timestamp may come
// before it in its stream: a stack trace logged line by line often shares
// one millisecond.
const sameMillisecond = 50

// contextLines returns the hit's event and up to after events that follow
// it in the same stream, read with GetLogEvents from the hit's timestamp.
func contextLines(ctx context.Context, c Client, h hit, after int) ([]string, error) {
	if after <= 0 || h.stream == "" {
		return []string{h.message}, nil
	}
	out, err := c.GetLogEvents(ctx, &cloudwatchlogs.GetLogEventsInput{
		LogGroupName:  aws.String(h.group),
		LogStreamName: aws.String(h.stream),
		StartTime:     aws.Int64(h.time.UnixMilli()),
		StartFromHead: aws.Bool(true),
		Limit:         aws.Int32(int32(after + sameMillisecond)),
	})
	if err != nil {
		return nil, fmt.Errorf("read log stream %s/%s: %w", h.group, h.stream, err)
	}
	start := -1
	for i, ev := range out.Events {
		if aws.ToString(ev.Message) == h.message && aws.ToInt64(ev.Timestamp) == h.time.UnixMilli() {
			start = i
			break
		}
	}
	if start < 0 {
		return []string{h.message}, nil
	}
	lines := []string{h.message}
	for _, ev := range out.Events[start+1:] {
		if len(lines) > after {
			break
		}
		lines = append(lines, aws.ToString(ev.Message))
	}
	return lines, nil
}
