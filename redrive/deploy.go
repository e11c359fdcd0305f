package redrive

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/mfdlq/mfdlq/idempotency"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/lambdaapi"
)

// Function is a Lambda consumer as mfdlq saw it: what tells a deploy.
type Function struct {
	Name         string    `json:"name"`
	ARN          string    `json:"arn"`
	Version      string    `json:"version"`
	CodeSha256   string    `json:"code_sha256"`
	LastModified time.Time `json:"last_modified"`
	SeenAt       time.Time `json:"seen_at"`
	// IdempotencyTable is the idempotency table the function's environment
	// names (IdempotencyVar, idempotency.TableFromEnv); "" when none does.
	IdempotencyTable string `json:"idempotency_table,omitempty"`
	IdempotencyVar   string `json:"idempotency_var,omitempty"`
}

// ConsumerStep is the incident event that records the Lambda consumers of
// a queue the first time a step (contain, inspect, classify) saw them.
const ConsumerStep = "consumer"

// Consumers reads the functions of the Lambda event source mappings whose
// source is queueARN, each once.
func Consumers(ctx context.Context, l Lambda, queueARN string, now time.Time) ([]Function, error) {
	out := []Function{}
	seen := map[string]bool{}
	in := &lambda.ListEventSourceMappingsInput{EventSourceArn: aws.String(queueARN)}
	for {
		page, err := l.ListEventSourceMappings(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list event source mappings: %w", err)
		}
		for _, m := range page.EventSourceMappings {
			arn := aws.ToString(m.FunctionArn)
			if arn == "" || seen[arn] {
				continue
			}
			seen[arn] = true
			f, err := readFunction(ctx, l, arn, now)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		if aws.ToString(page.NextMarker) == "" {
			return out, nil
		}
		in.Marker = page.NextMarker
	}
}

// ReadFunction reads one function as a consumer: the function a redrive
// to lambda: invokes is the consumer whose fix must be deployed.
func ReadFunction(ctx context.Context, l Lambda, arn string, now time.Time) (Function, error) {
	return readFunction(ctx, l, arn, now)
}

func readFunction(ctx context.Context, l Lambda, arn string, now time.Time) (Function, error) {
	out, err := l.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(arn)})
	if err != nil {
		return Function{}, fmt.Errorf("get function %s: %w", lambdaapi.FunctionName(arn), err)
	}
	f := Function{Name: lambdaapi.FunctionName(arn), ARN: arn, SeenAt: now.UTC()}
	if c := out.Configuration; c != nil {
		f.Version, f.CodeSha256 = aws.ToString(c.Version), aws.ToString(c.CodeSha256)
		f.LastModified = parseLambdaTime(aws.ToString(c.LastModified))
		if c.Environment != nil {
			f.IdempotencyTable, f.IdempotencyVar = idempotency.TableFromEnv(c.Environment.Variables)
		}
	}
	return f, nil
}

// parseLambdaTime reads Lambda's LastModified (ISO 8601, e.g.
// 2026-11-28T10:00:00.000+0000); zero when it cannot.
func parseLambdaTime(s string) time.Time {
	for _, layout := range []string{"2006-01-02T15:04:05.000-0700", "2006-01-02T15:04:05-0700", time.RFC3339Nano, "2006-01-02T15:04:05.999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// Deploy is the fix-deployed check's reading of the incident: which
// functions it saw and when the failures it compares with began.
type Deploy struct {
	// Since is when the failures a fix must postdate began: the first
	// failure of the gated groups, or the previous attempt's redrive.
	Since time.Time
	// SinceText says what Since is, for the refusal.
	SinceText string
	// Baseline is each function as the incident saw it before (by ARN):
	// first seen, or at the previous attempt's redrive.
	Baseline map[string]Function
}

// Deployed tells whether f changed since the failures began: modified
// after Since, or another CodeSha256 or Version than its baseline (some
// deploys, and moto's UpdateFunctionCode, do not move LastModified).
func (d Deploy) Deployed(f Function) bool {
	if !f.LastModified.IsZero() && f.LastModified.After(d.Since) {
		return true
	}
	b, ok := d.Baseline[f.ARN]
	return ok && (b.CodeSha256 != f.CodeSha256 || b.Version != f.Version)
}

// Refusal is the one-line refusal for a function that has not changed.
func (d Deploy) Refusal(f Function, now time.Time) *Refusal {
	return &Refusal{Reason: fmt.Sprintf("%s was last changed %s, before %s: the fix is not deployed; deploy it and run again, or pass --force if the fix is not in its code",
		f.Name, f.LastModified.UTC().Format("2006-01-02 15:04 UTC"), d.SinceText)}
}

// FunctionsOf decodes the functions recorded in an event's figures: a
// consumer event's, or a redrive event's (the baseline of the next
// attempt). Both types name them "consumers".
func FunctionsOf(ev incident.Event) []Function {
	var f ConsumerFigures
	if ev.DecodeFigures(&f) != nil {
		return nil
	}
	return f.Consumers
}

// FirstSeen is each function as the incident's consumer events first
// recorded it, by ARN.
func FirstSeen(events []incident.Event) map[string]Function {
	out := map[string]Function{}
	for _, ev := range events {
		if ev.Step != ConsumerStep {
			continue
		}
		for _, f := range FunctionsOf(ev) {
			if _, ok := out[f.ARN]; !ok {
				out[f.ARN] = f
			}
		}
	}
	return out
}

// When writes a moment the way the refusal names it: "Sunday 22:04" within
// the last week of now, else the date.
func When(t, now time.Time) string {
	t = t.UTC()
	if now.Sub(t) < 6*24*time.Hour && !t.After(now) {
		return t.Format("Monday 15:04")
	}
	return t.Format("2006-01-02 15:04")
}
