package logsearch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// seedStream creates group/stream on the local AWS and puts lines as
// events, one millisecond apart from start.
func seedStream(t *testing.T, c *cloudwatchlogs.Client, group, stream string, start time.Time, lines []string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(group)}); err != nil && !strings.Contains(err.Error(), "ResourceAlreadyExists") {
		t.Fatal(err)
	}
	if _, err := c.CreateLogStream(ctx, &cloudwatchlogs.CreateLogStreamInput{LogGroupName: aws.String(group), LogStreamName: aws.String(stream)}); err != nil {
		t.Fatal(err)
	}
	evs := make([]types.InputLogEvent, len(lines))
	for i, l := range lines {
		evs[i] = types.InputLogEvent{Message: aws.String(l), Timestamp: aws.Int64(start.Add(time.Duration(i) * time.Millisecond).UnixMilli())}
	}
	if _, err := c.PutLogEvents(ctx, &cloudwatchlogs.PutLogEventsInput{LogGroupName: aws.String(group), LogStreamName: aws.String(stream), LogEvents: evs}); err != nil {
		t.Fatal(err)
	}
}

const (
	motoA = "5e0c2a44-8d1b-4f0e-9c3a-1b2c3d4e5f60"
	motoB = "6f1d3b55-9e2c-4a1f-8d4b-2c3d4e5f6071"
	motoC = "7a2e4c66-af3d-4b2a-9e5c-3d4e5f607182"
)

// seedOrders puts a consumer's logs on the local AWS: among unrelated lines,
// motoA's line followed by a traceback in stream s1, motoB's in s2 of a
// second group, the next invocation's error right after motoA's story, and
// nothing for motoC.
func seedOrders(t *testing.T, c *cloudwatchlogs.Client, now time.Time) (g1, g2 string) {
	g1, g2 = "/aws/lambda/"+localaws.UniqueName("orders"), "/aws/lambda/"+localaws.UniqueName("billing")
	seedStream(t, c, g1, "2024/03/10/[$LATEST]s1", now.Add(-2*time.Minute), []string{
		"START RequestId: r1 Version: $LATEST",
		"INFO handling batch of 1",
		"ERROR failed to process message " + motoA,
		"Traceback (most recent call last):",
		`  File "/var/task/handler.py", line 31, in handle`,
		"UnsupportedVersionError: version 2",
		"END RequestId: r1",
		"START RequestId: r2 Version: $LATEST",
		"KeyError: 'unrelated'",
	})
	seedStream(t, c, g1, "2024/03/10/[$LATEST]s0", now.Add(-3*time.Minute), []string{"INFO warm-up", "INFO nothing to see"})
	seedStream(t, c, g2, "2024/03/10/[$LATEST]s2", now.Add(-time.Minute), []string{
		"message " + motoB + " charge failed",
		"SkuNotFound: SKU-9555",
	})
	return g1, g2
}

func timeRange(now time.Time) Range {
	return Range{From: now.Add(-10 * time.Minute), To: now.Add(time.Minute)}
}

func TestSearchMoto(t *testing.T) {
	c := cloudwatchlogs.NewFromConfig(localaws.Config(t))
	now := time.Now().UTC()
	g1, g2 := seedOrders(t, c, now)
	for _, m := range []Method{MethodFilter, MethodInsights} {
		t.Run(string(m), func(t *testing.T) {
			ts := []Wanted{{MessageID: motoA, Range: timeRange(now)}, {MessageID: motoB, Range: timeRange(now)}, {MessageID: motoC, Range: timeRange(now)}}
			rep, err := Search(context.Background(), c, ts, Options{Groups: []string{g1, g2}, Context: 20, Method: m, Poll: Poll{Initial: time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Method != m || rep.Searched != 3 || rep.Found != 2 {
				t.Fatalf("method %s searched %d found %d, want %s 3 2", rep.Method, rep.Searched, rep.Found, m)
			}
			a, b, cc := rep.Messages[0], rep.Messages[1], rep.Messages[2]
			if a.LogGroup != g1 || a.LogStream != "2024/03/10/[$LATEST]s1" || a.Exception != "UnsupportedVersionError: version 2" || a.Signature != "UnsupportedVersionError: version <n>" {
				t.Errorf("A: %+v", a)
			}
			if len(a.Lines) != 4 || !strings.Contains(a.Lines[0], motoA) {
				t.Errorf("A lines %q: want the matching line and its traceback, not the next invocation", a.Lines)
			}
			if want := now.Add(-2 * time.Minute).Add(2 * time.Millisecond).UTC().Format(TimeLayout); a.Timestamp != want {
				t.Errorf("A timestamp %s, want %s", a.Timestamp, want)
			}
			if b.LogGroup != g2 || b.Signature != "SkuNotFound: SKU-<n>" {
				t.Errorf("B: %+v", b)
			}
			if cc.Found || cc.Matches != 0 {
				t.Errorf("C: %+v, want not found", cc)
			}
		})
	}
}

func TestSearchMotoRangeExcludes(t *testing.T) {
	c := cloudwatchlogs.NewFromConfig(localaws.Config(t))
	now := time.Now().UTC()
	g1, _ := seedOrders(t, c, now)
	// The line naming A is 2 minutes old; a range that ended 5 minutes ago
	// must not find it.
	early := Range{From: now.Add(-time.Hour), To: now.Add(-5 * time.Minute)}
	rep, err := Search(context.Background(), c, []Wanted{{MessageID: motoA, Range: early}}, Options{Groups: []string{g1}, Context: 5, Method: MethodFilter})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found != 0 {
		t.Errorf("found %d outside the range", rep.Found)
	}
}

func TestSearchMotoMissingGroup(t *testing.T) {
	c := cloudwatchlogs.NewFromConfig(localaws.Config(t))
	_, err := Search(context.Background(), c, []Wanted{{MessageID: motoA, Range: timeRange(time.Now())}}, Options{Groups: []string{"/no/such/" + localaws.UniqueName("g")}, Method: MethodFilter})
	var nf *GroupNotFoundError
	if !errors.As(err, &nf) || !strings.HasPrefix(nf.Group, "/no/such/") {
		t.Errorf("err = %v, want a GroupNotFoundError naming the group", err)
	}
}

// pagedLogs answers FilterLogEvents one event per page, with an empty page
// between (CloudWatch returns empty pages with a NextToken while it scans).
type pagedLogs struct {
	Client
	events []string
	calls  int
}

func (p *pagedLogs) FilterLogEvents(_ context.Context, in *cloudwatchlogs.FilterLogEventsInput, _ ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.FilterLogEventsOutput, error) {
	p.calls++
	i := 0
	if in.NextToken != nil {
		fmt.Sscan(*in.NextToken, &i)
	}
	out := &cloudwatchlogs.FilterLogEventsOutput{}
	if i%2 == 0 && i/2 < len(p.events) {
		out.Events = []types.FilteredLogEvent{{Message: aws.String(p.events[i/2]), LogStreamName: aws.String("s"), Timestamp: aws.Int64(int64(1000 + i))}}
	}
	if i+1 < 2*len(p.events) {
		out.NextToken = aws.String(fmt.Sprint(i + 1))
	}
	return out, nil
}

func TestFilterFollowsPagesAndStopsAtMaxHits(t *testing.T) {
	few := &pagedLogs{events: []string{"a " + idA, "b " + idA, "c " + idA}}
	rep, err := Search(context.Background(), few, targets(idA), Options{Groups: []string{"g"}, Method: MethodFilter})
	if err != nil {
		t.Fatal(err)
	}
	if m := rep.Messages[0]; m.Matches != 3 || m.Lines[0] != "c "+idA {
		t.Errorf("matches %d, lines %q; want 3 across pages, the latest told", m.Matches, m.Lines)
	}
	many := &pagedLogs{events: make([]string, 100)}
	for i := range many.events {
		many.events[i] = fmt.Sprintf("%d %s", i, idA)
	}
	rep, err = Search(context.Background(), many, targets(idA), Options{Groups: []string{"g"}, Method: MethodFilter})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages[0].Matches != maxHits || many.calls > 2*maxHits {
		t.Errorf("matches %d after %d calls, want %d and no further pages", rep.Messages[0].Matches, many.calls, maxHits)
	}
}

// A Lambda batch logs its messages one after the other in one invocation,
// with no START line between them: each message's story stops where the
// next message's begins, so each gets its own exception. The local AWS
// ignores FilterLogEvents' filterPattern and returns every event: only the
// line that names a message starts its story.
func TestSearchMotoBatchGivesEachMessageItsOwnException(t *testing.T) {
	c := cloudwatchlogs.NewFromConfig(localaws.Config(t))
	now := time.Now().UTC()
	group := "/aws/lambda/" + localaws.UniqueName("batch")
	const req = "0f8e2b1a-6c3d-4e5f-8a9b-0c1d2e3f4a5b"
	seedStream(t, c, group, "2024/03/10/[$LATEST]b1", now.Add(-time.Minute), []string{
		"START RequestId: " + req + " Version: $LATEST",
		"2024-03-10T22:04:03.120Z\t" + req + "\tERROR\tfailed to process message " + motoA,
		"UnsupportedVersionError: version 2",
		"2024-03-10T22:04:03.121Z\t" + req + "\tERROR\tfailed to process message " + motoB,
		"KeyError: 'sku'",
		"END RequestId: " + req,
	})
	for _, m := range []Method{MethodFilter, MethodInsights} {
		t.Run(string(m), func(t *testing.T) {
			ts := []Wanted{{MessageID: motoA, Range: timeRange(now)}, {MessageID: motoB, Range: timeRange(now)}, {MessageID: motoC, Range: timeRange(now)}}
			rep, err := Search(context.Background(), c, ts, Options{Groups: []string{group}, Context: 20, Method: m, Poll: Poll{Initial: time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			a, b, cc := rep.Messages[0], rep.Messages[1], rep.Messages[2]
			if a.Exception != "UnsupportedVersionError: version 2" || len(a.Lines) != 2 {
				t.Errorf("A: exception %q, lines %q; want its own error, not B's", a.Exception, a.Lines)
			}
			if b.Exception != "KeyError: 'sku'" || len(b.Lines) != 2 {
				t.Errorf("B: exception %q, lines %q", b.Exception, b.Lines)
			}
			if cc.Found {
				t.Errorf("C is named by no line but was found: %+v", cc)
			}
		})
	}
}

// TestSearchRefusesAnIDThatCouldChangeAQuery: whatever source a target came
// from, an id outside the MessageId alphabet is never sent in a filter
// pattern or an Insights query.
func TestSearchRefusesAnIDThatCouldChangeAQuery(t *testing.T) {
	for _, id := range []string{
		`x" OR "`, `a/ or @message like /.*`, "a\nfields @message", "a|b", "", "a b", `"`, "a*", strings.Repeat("a", 129),
	} {
		for _, m := range []Method{MethodFilter, MethodInsights} {
			c := &pagedLogs{}
			_, err := Search(context.Background(), c, []Wanted{{MessageID: idA}, {MessageID: id}}, Options{Groups: []string{"g"}, Method: m})
			var bad *InvalidIDError
			if !errors.As(err, &bad) || bad.ID != id {
				t.Errorf("Search(%q, %s) = %v, want an InvalidIDError", id, m, err)
			}
			if c.calls != 0 {
				t.Errorf("Search(%q, %s) made %d calls, want none", id, m, c.calls)
			}
			if id == "" {
				continue // an empty RequestID means none
			}
			_, err = Search(context.Background(), c, []Wanted{{MessageID: idA, RequestID: id}}, Options{Groups: []string{"g"}, Method: m})
			if !errors.As(err, &bad) || c.calls != 0 {
				t.Errorf("Search(request id %q, %s) = %v after %d calls, want an InvalidIDError and none", id, m, err, c.calls)
			}
		}
	}
}
