package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"

	"github.com/mfdlq/mfdlq/alarmtriage"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incidents3"
	"github.com/mfdlq/mfdlq/notify"
)

// lambdaRuntimeEnv is set by the Lambda runtime: the binary then serves
// events instead of reading a command line (docs/headless.md).
const lambdaRuntimeEnv = "AWS_LAMBDA_RUNTIME_API"

// serveLambda serves the function's events until the runtime ends the
// process: each event is one alarm state change, answered or failed in
// one line; a bad setting fails every invocation with the fix, never the
// runtime's start (a failing init is retried by Lambda over and over).
func serveLambda(ctx context.Context) int {
	d := cmdutil.NewDeps(cmdutil.SystemIO(), nil)
	d.Global.Quiet = true
	lambda.StartWithOptions(newLambdaHandler(d), lambda.WithContext(ctx))
	return cmdutil.ExitUnexpected // StartWithOptions returns only by exiting
}

// lambdaInvoker is the function's handler, or the setting's error.
type lambdaInvoker struct {
	d   *cmdutil.Deps
	h   *alarmtriage.Handler
	err error
}

// Invoke handles one event; the S3 client is made at the first, so a
// start makes no AWS call.
func (l *lambdaInvoker) Invoke(ctx context.Context, raw []byte) ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.h.S3 == nil {
		c, err := l.d.S3Client(ctx)
		if err != nil {
			return nil, fmt.Errorf("mfdlq: %v", err)
		}
		l.h.S3 = c
	}
	return l.h.Invoke(ctx, raw)
}

// newLambdaHandler builds the handler from the function's environment:
// MFDLQ_INCIDENT_S3 (required), MFDLQ_NOTIFY, MFDLQ_ALARM_TAG and
// MFDLQ_TRIAGE_SAMPLE (triage's --sample, for a DLQ CloudWatch has no
// datapoints of yet).
func newLambdaHandler(d *cmdutil.Deps) *lambdaInvoker {
	l := &lambdaInvoker{d: d}
	raw := os.Getenv("MFDLQ_INCIDENT_S3")
	if raw == "" {
		l.err = errors.New("mfdlq: MFDLQ_INCIDENT_S3 is not set: give the function s3://bucket/prefix/ for its incidents (deploy/mfdlq.yaml's IncidentBucket and IncidentPrefix)")
		return l
	}
	p, err := incidents3.ParsePrefix(raw)
	if err != nil {
		l.err = fmt.Errorf("mfdlq: MFDLQ_INCIDENT_S3: %v", err)
		return l
	}
	var extra []string
	if v := os.Getenv("MFDLQ_TRIAGE_SAMPLE"); v != "" {
		if _, err := time.ParseDuration(v); err != nil {
			l.err = fmt.Errorf("mfdlq: MFDLQ_TRIAGE_SAMPLE %q: a duration such as 10s", v)
			return l
		}
		extra = append(extra, "--sample", v)
	}
	l.h = &alarmtriage.Handler{Prefix: p, WorkDir: os.TempDir(), Now: d.Now,
		Triage: func(ctx context.Context, queue, dir string) (alarmtriage.Result, error) {
			return lambdaTriage(ctx, d, queue, dir, extra)
		}}
	if t := os.Getenv("MFDLQ_NOTIFY"); t != "" {
		target, err := notify.Parse(t)
		if err != nil {
			l.err = fmt.Errorf("mfdlq: MFDLQ_NOTIFY: %v", err)
			return l
		}
		send := d.NotifySender()
		l.h.Notify = &alarmtriage.Notifier{Target: target, Send: func(ctx context.Context, m notify.Message) error { return send.Send(ctx, target, m) }}
	}
	if tag := os.Getenv("MFDLQ_ALARM_TAG"); tag != "" {
		l.h.TagKey, l.h.TagValue, _ = strings.Cut(tag, "=")
		l.h.Tags = func(ctx context.Context, arn string) (map[string]string, error) { return alarmTags(ctx, d, arn) }
	}
	return l
}

// alarmTags reads an alarm's tags (cloudwatch:ListTagsForResource): the
// event carries them only when the alarm propagates its tags.
func alarmTags(ctx context.Context, d *cmdutil.Deps, arn string) (map[string]string, error) {
	c, err := d.CloudWatch(ctx)
	if err != nil {
		return nil, err
	}
	out, err := c.ListTagsForResource(ctx, &cloudwatch.ListTagsForResourceInput{ResourceARN: aws.String(arn)})
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	for _, t := range out.Tags {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return tags, nil
}

// lambdaTriage runs `mfdlq triage --queue QUEUE --output json` through
// the command tree into dir, as a person would, and reads the answer's
// verdict, alive and messages. Its error is the command's one line.
func lambdaTriage(ctx context.Context, d *cmdutil.Deps, queue, dir string, extra []string) (alarmtriage.Result, error) {
	var out, errOut bytes.Buffer
	args := append([]string{"triage", "--queue", queue, "--incident", dir, "--output", "json", "--quiet"}, extra...)
	sub := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
	sub.Now = d.Now
	if code := run(ctx, sub, args); code != cmdutil.ExitOK {
		return alarmtriage.Result{}, errors.New(commandError(errOut.Bytes(), code))
	}
	var doc struct {
		Verdict  string          `json:"verdict"`
		Alive    json.RawMessage `json:"alive"`
		Messages int64           `json:"messages"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		return alarmtriage.Result{}, fmt.Errorf("triage's answer: %w", err)
	}
	return alarmtriage.Result{Verdict: doc.Verdict, Alive: aliveText(doc.Alive), Messages: doc.Messages}, nil
}

// aliveText is triage's alive as a word, whether the document says it
// with a boolean or a word.
func aliveText(raw json.RawMessage) string {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return map[bool]string{true: "yes", false: "no"}[b]
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return "unknown"
}

// commandError is the message of the JSON error line a command wrote on
// stderr under --output json, or its last line.
func commandError(stderr []byte, code int) string {
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var e cmdutil.ExitErrorLine
		if json.Unmarshal([]byte(lines[i]), &e) == nil && e.Type == "error" {
			return e.Message
		}
	}
	if last := lines[len(lines)-1]; last != "" {
		return last
	}
	return fmt.Sprintf("exit status %d", code)
}
