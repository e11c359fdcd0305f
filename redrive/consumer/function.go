// Package consumer is what a redrive knows of a queue's Lambda consumers:
// the functions its event source mappings invoke as mfdlq saw them
// (Function, recorded in the incident's consumer events), whether a fix
// was deployed to them since the failures began (Deploy), and whether a
// mapping is paused (Mappings). redrive's guard and cmd use it; it never
// imports redrive.
package consumer

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/mfdlq/mfdlq/idempotency"
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
