package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/logsearch"
)

// sqs-send-id QUEUE BODY VAR sends one message and sets VAR to its MessageId.
func cmdSQSSendID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: sqs-send-id QUEUE BODY VAR")
	}
	s := seeder(ts)
	ctx := context.Background()
	url, err := s.CreateQueue(ctx, args[0], nil)
	ts.Check(err)
	out, err := s.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(args[1])})
	ts.Check(err)
	ts.Setenv(args[2], aws.ToString(out.MessageId))
}

// logs-put GROUP STREAM FILE creates a log group (if new) and a stream on
// the local AWS and puts each line of FILE as one event, one millisecond
// apart ending now. ${VAR} in the lines is replaced by the script's VAR.
func cmdLogsPut(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: logs-put GROUP STREAM FILE")
	}
	// The same local AWS as the SQS seeder, through the plain SDK.
	so := seeder(ts).SQS.Options()
	c := cloudwatchlogs.New(cloudwatchlogs.Options{Region: so.Region, BaseEndpoint: so.BaseEndpoint, Credentials: so.Credentials})
	ctx := context.Background()
	_, err := c.CreateLogGroup(ctx, &cloudwatchlogs.CreateLogGroupInput{LogGroupName: aws.String(args[0])})
	var exists *types.ResourceAlreadyExistsException
	if err != nil && !errors.As(err, &exists) {
		ts.Fatalf("create log group: %v", err)
	}
	_, err = c.CreateLogStream(ctx, &cloudwatchlogs.CreateLogStreamInput{LogGroupName: aws.String(args[0]), LogStreamName: aws.String(args[1])})
	ts.Check(err)
	lines := strings.Split(strings.TrimRight(ts.ReadFile(args[2]), "\n"), "\n")
	start := time.Now().Add(-time.Duration(len(lines)) * time.Millisecond)
	evs := make([]types.InputLogEvent, len(lines))
	for i, l := range lines {
		l = os.Expand(l, func(k string) string {
			if v := ts.Getenv(k); v != "" {
				return v
			}
			return "$" + k
		})
		evs[i] = types.InputLogEvent{Message: aws.String(l), Timestamp: aws.Int64(start.Add(time.Duration(i) * time.Millisecond).UnixMilli())}
	}
	_, err = c.PutLogEvents(ctx, &cloudwatchlogs.PutLogEventsInput{LogGroupName: aws.String(args[0]), LogStreamName: aws.String(args[1]), LogEvents: evs})
	ts.Check(err)
}

func TestLogsFlags(t *testing.T) {
	def := logsOptions{Queue: "q", Groups: []string{"/aws/lambda/orders"}, IDs: 3, Margin: 30 * time.Minute, Since: 24 * time.Hour, Context: 20, Method: "auto", Timeout: 5 * time.Minute}
	with := func(f func(o *logsOptions)) logsOptions { o := def; f(&o); return o }
	id := "5e0c2a44-8d1b-4f0e-9c3a-1b2c3d4e5f60"
	g := []string{"--queue", "q", "--log-group", "/aws/lambda/orders"}
	many := append([]string{}, g...)
	for range 51 {
		many = append(many, "--log-group", "g")
	}
	tests := []struct {
		args    []string
		want    logsOptions
		wantErr string
	}{
		{args: g, want: def},
		{args: append(g, "--log-group", "/aws/lambda/billing", "--message-id", id, "--margin", "2h", "--context", "5"), want: with(func(o *logsOptions) {
			o.Groups = append(o.Groups, "/aws/lambda/billing")
			o.MessageIDs, o.Margin, o.Context = []string{id}, 2*time.Hour, 5
		})},
		{args: []string{"--queue", "q", "--log-file", "x.jsonl", "--ids", "10", "--from", "s.jsonl"}, want: with(func(o *logsOptions) { o.Groups, o.LogFile, o.IDs, o.From = nil, "x.jsonl", 10, "s.jsonl" })},
		{args: []string{"--log-group", "g"}, wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: []string{"--queue", "q"}, wantErr: "--log-group is required: the consumer's CloudWatch Logs group (or --log-file FILE)"},
		{args: append(g, "--ids", "0"), wantErr: "--ids must be between 1 and 200, got 0"},
		{args: append(g, "--message-id", `x" OR "y`), wantErr: `--message-id "x\" OR \"y" is not an SQS MessageId (letters, digits and -)`},
		{args: append(g, "--margin", "0s"), wantErr: "--margin and --since must be > 0"},
		{args: append(g, "--context", "-1"), wantErr: "--context must be between 0 and 1000, got -1"},
		{args: append(g, "--method", "grep"), wantErr: `--method "grep": use auto, filter or insights`},
		{args: append(g, "--ids", "4", "--message-id", id), wantErr: "if any flags in the group [ids message-id] are set none of the others can be; [ids message-id] were all set"},
		{args: append(g, "--log-file", "f"), wantErr: "if any flags in the group [log-file log-group] are set none of the others can be; [log-file log-group] were all set"},
		{args: append(many, "--method", "insights"), wantErr: "an Insights query takes at most 50 --log-group, got 52"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := testDeps(t, false)
			var got *logsOptions
			c := newLogsCmd(d, func(o *logsOptions) error { got = o; return nil })
			err := parseWith(c, tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v; want %q", err, tc.wantErr)
				}
				// The exit status as mfdlq maps it, cobra's own flag-group
				// errors included: every one is a usage error.
				rd, _, errOut := testDeps(t, false)
				if code := run(context.Background(), rd, append([]string{"logs"}, tc.args...)); code != ExitUsage {
					t.Fatalf("exit %d, want 2\nstderr:\n%s", code, errOut)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreUnexported(logsOptions{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestLogsSpreadsAcrossGroups runs logs against moto with a classification
// whose groups each name one sampled message: the three searched are one per
// group, not the first three samples, and the TTY shape highlights the
// exception.
func TestLogsSpreadsAcrossGroups(t *testing.T) {
	d, out, errOut := testDeps(t, true)
	d.Now = func() time.Time { return time.Now().UTC() }
	dlq := seedDLQ(t, 2)
	ws, err := d.Workspace(dlq)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	samples := ""
	for _, id := range []string{"a1", "a2", "a3", "b1", "c1"} {
		samples += `{"MessageId":"` + id + `","Body":"{}","Attributes":{"SentTimestamp":"` + strconv.FormatInt(now, 10) + `"}}` + "\n"
	}
	ws.WriteFile("samples.jsonl", []byte(samples))
	ws.WriteFile("classification.json", []byte(`{"groups":[{"id":"g1","example_message_ids":["a2","a3"]},{"id":"g2","example_message_ids":["b1"]},{"id":"g3","example_message_ids":["c1"]}]}`))
	logFile := filepath.Join(t.TempDir(), "export.jsonl")
	os.WriteFile(logFile, []byte(`{"timestamp":`+strconv.FormatInt(now, 10)+`,"message":"failed b1"}`+"\n"+`{"timestamp":`+strconv.FormatInt(now, 10)+`,"message":"\tSkuNotFound: SKU-9123"}`+"\n"), 0o600)
	o := &logsOptions{deps: d, Queue: dlq, LogFile: logFile, IDs: 3, Margin: time.Minute, Since: time.Hour, Context: 5, Method: "auto", Timeout: time.Minute}
	if err := runLogs(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var rep logsearch.Result
	if err := ws.ReadJSON("logs.json", &rep); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range rep.Messages {
		ids = append(ids, m.MessageID)
	}
	if diff := cmp.Diff([]string{"a2", "b1", "c1"}, ids); diff != "" {
		t.Errorf("messages searched (-want +got):\n%s", diff)
	}
	if !strings.Contains(out.String(), "\x1b[") || !strings.Contains(out.String(), "SkuNotFound: SKU-9123") {
		t.Errorf("TTY output without a highlighted exception:\n%q", out.String())
	}
	if !strings.Contains(out.String(), "a2  not found in "+logFile) || !strings.Contains(errOut.String(), "try a wider window (--margin 4m0s)") {
		t.Errorf("not-found answer missing:\nstdout %s\nstderr %s", out, errOut)
	}
	var doc map[string]any
	b, _ := os.ReadFile(ws.Path("logs.json"))
	json.Unmarshal(b, &doc)
	if doc["method"] != "file" || doc["found"] != 1.0 || doc["searched"] != 3.0 {
		t.Errorf("logs.json head: method %v found %v searched %v", doc["method"], doc["found"], doc["searched"])
	}
}
