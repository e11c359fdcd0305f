// Package lambdaapi is mfdlq's Lambda layer: the event source mappings that
// consume a queue — listed with their function's timeout, paused, capped and
// restored to the state the incident recorded.
package lambdaapi

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"

	"github.com/mfdlq/mfdlq/idempotency"
)

// LambdaAPI is every Lambda call mfdlq makes, with the SDK's signatures so
// *lambda.Client satisfies it.
type LambdaAPI interface {
	ListEventSourceMappings(ctx context.Context, in *lambda.ListEventSourceMappingsInput, optFns ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error)
	UpdateEventSourceMapping(ctx context.Context, in *lambda.UpdateEventSourceMappingInput, optFns ...func(*lambda.Options)) (*lambda.UpdateEventSourceMappingOutput, error)
	GetFunctionConfiguration(ctx context.Context, in *lambda.GetFunctionConfigurationInput, optFns ...func(*lambda.Options)) (*lambda.GetFunctionConfigurationOutput, error)
}

var _ LambdaAPI = (*lambda.Client)(nil)

// Mapping is a Lambda event source mapping reading a queue, with what
// matters during an incident.
type Mapping struct {
	UUID               string `json:"uuid"`
	Function           string `json:"function"`
	FunctionARN        string `json:"function_arn"`
	Queue              string `json:"queue"`
	State              string `json:"state"`
	BatchSize          int32  `json:"batch_size"`
	MaximumConcurrency *int32 `json:"maximum_concurrency"`
	// Pollers is the mapping's provisioned mode (ProvisionedPollerConfig),
	// nil in the default mode. The two caps are exclusive: in provisioned
	// mode Lambda refuses MaximumConcurrency, and MaximumPollers bounds
	// the consumer (each SQS poller up to 10 concurrent invocations).
	Pollers              *Pollers `json:"provisioned_pollers,omitempty"`
	FunctionTimeout      *int32   `json:"function_timeout_seconds"`
	QueueVisibility      int64    `json:"queue_visibility_timeout_seconds"`
	VisibilityAssessment string   `json:"visibility_assessment"`
	// ReportBatchItemFailures says the mapping's FunctionResponseTypes
	// hold ReportBatchItemFailures: one bad message fails only itself.
	ReportBatchItemFailures bool `json:"report_batch_item_failures"`
	// IdempotencyTable is the idempotency store the function's environment
	// names (IdempotencyVar); "" when none does.
	IdempotencyTable string `json:"idempotency_table,omitempty"`
	IdempotencyVar   string `json:"idempotency_var,omitempty"`
}

// Enabled tells whether the mapping is consuming (or about to).
func (m Mapping) Enabled() bool {
	switch m.State {
	case "Enabled", "Enabling", "Creating", "Updating":
		return true
	}
	return false
}

// Mappings lists the event source mappings whose source is queueARN, with
// each function's timeout read beside it. visibility is the queue's
// visibility timeout in seconds.
func Mappings(ctx context.Context, l LambdaAPI, queue, queueARN string, visibility int64) ([]Mapping, error) {
	out := []Mapping{}
	in := &lambda.ListEventSourceMappingsInput{EventSourceArn: aws.String(queueARN)}
	for {
		page, err := l.ListEventSourceMappings(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list event source mappings of %s: %w", queue, err)
		}
		for _, c := range page.EventSourceMappings {
			m := fromConfig(c, queue, visibility)
			if err := m.readTimeout(ctx, l); err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		if aws.ToString(page.NextMarker) == "" {
			return out, nil
		}
		in.Marker = page.NextMarker
	}
}

func fromConfig(c types.EventSourceMappingConfiguration, queue string, visibility int64) Mapping {
	m := Mapping{
		UUID: aws.ToString(c.UUID), FunctionARN: aws.ToString(c.FunctionArn), Queue: queue,
		State: aws.ToString(c.State), BatchSize: aws.ToInt32(c.BatchSize), QueueVisibility: visibility,
	}
	m.Function = FunctionName(m.FunctionARN)
	m.ReportBatchItemFailures = slices.Contains(c.FunctionResponseTypes, types.FunctionResponseTypeReportBatchItemFailures)
	if c.ScalingConfig != nil && c.ScalingConfig.MaximumConcurrency != nil {
		m.MaximumConcurrency = aws.Int32(*c.ScalingConfig.MaximumConcurrency)
	}
	m.Pollers = pollersOf(c.ProvisionedPollerConfig)
	return m
}

// readTimeout reads the function's timeout and judges the queue's visibility
// timeout against it. A function that cannot be read (deleted, or no
// permission) leaves the timeout unknown rather than failing the listing.
func (m *Mapping) readTimeout(ctx context.Context, l LambdaAPI) error {
	fc, err := l.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(m.FunctionARN)})
	if err != nil {
		var api smithy.APIError
		if errors.As(err, &api) {
			m.VisibilityAssessment = "function timeout unknown: " + api.ErrorCode()
			return nil
		}
		return fmt.Errorf("read function %s: %w", m.Function, err)
	}
	if fc.Timeout != nil {
		m.FunctionTimeout = aws.Int32(*fc.Timeout)
	}
	if fc.Environment != nil {
		m.IdempotencyTable, m.IdempotencyVar = idempotency.TableFromEnv(fc.Environment.Variables)
	}
	m.VisibilityAssessment = assessVisibility(m.QueueVisibility, m.FunctionTimeout)
	return nil
}

// assessVisibility states the queue's visibility timeout against the
// function's timeout in one phrase: AWS recommends at least six times.
func assessVisibility(visibility int64, timeout *int32) string {
	_, text := JudgeVisibility(visibility, timeout)
	return text
}

// Visibility is how a queue's visibility timeout compares with the timeout
// of the function that reads it.
type Visibility int

// The comparisons, worst first after unknown.
const (
	VisibilityUnknown Visibility = iota // the function's timeout could not be read
	VisibilityShort                     // under 1×: slow messages are processed twice
	VisibilityLow                       // under 6×, AWS's recommendation
	VisibilityOK                        // 6× or more
)

// JudgeVisibility compares visibility (seconds) with the function's
// timeout and says it in one phrase.
func JudgeVisibility(visibility int64, timeout *int32) (Visibility, string) {
	switch {
	case timeout == nil:
		return VisibilityUnknown, "function timeout unknown"
	case visibility < int64(*timeout):
		return VisibilityShort, fmt.Sprintf("visibility %ds is shorter than the function timeout %ds: slow messages are processed twice", visibility, *timeout)
	case visibility < 6*int64(*timeout):
		return VisibilityLow, fmt.Sprintf("visibility %ds is under 6× the function timeout %ds", visibility, *timeout)
	}
	return VisibilityOK, fmt.Sprintf("visibility %ds ≥ 6× the function timeout %ds", visibility, *timeout)
}
