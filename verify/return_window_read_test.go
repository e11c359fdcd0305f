package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
)

// deniedLambda answers every call AccessDenied, or, with a timeout,
// GetFunction with it and no event invoke config.
type deniedLambda struct{ timeout int32 }

func (d deniedLambda) GetFunction(context.Context, *lambda.GetFunctionInput, ...func(*lambda.Options)) (*lambda.GetFunctionOutput, error) {
	if d.timeout > 0 {
		return &lambda.GetFunctionOutput{Configuration: &types.FunctionConfiguration{Timeout: aws.Int32(d.timeout)}}, nil
	}
	return nil, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "denied"}
}

func (d deniedLambda) GetFunctionEventInvokeConfig(context.Context, *lambda.GetFunctionEventInvokeConfigInput, ...func(*lambda.Options)) (*lambda.GetFunctionEventInvokeConfigOutput, error) {
	if d.timeout > 0 {
		return nil, &smithy.GenericAPIError{Code: "ResourceNotFoundException", Message: "no config"}
	}
	return nil, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "denied"}
}

// Without permission to read the function the return window takes Lambda's
// maximum timeout and its default retries and age: later, never earlier.
func TestLambdaReturnWindowWithoutReadPermission(t *testing.T) {
	end := t0
	r := Redriven{Target: "lambda", EndedAt: end}
	w, err := ReadReturnWindow(context.Background(), ReturnWindowReaders{Lambda: deniedLambda{}, Function: "orders"}, r)
	if err != nil {
		t.Fatal(err)
	}
	// 3 attempts of 15 minutes + 3 minutes of waits + 30 s.
	if want := end.Add(48*time.Minute + 30*time.Second); !w.RetriesBy.Equal(want) || !strings.Contains(w.Parts[1], "could not be read") {
		t.Fatalf("denied: %v, want %v; %q", w.RetriesBy, want, w.Parts)
	}
	w, err = ReadReturnWindow(context.Background(), ReturnWindowReaders{Lambda: deniedLambda{timeout: 10}, Function: "orders"}, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := end.Add(3*time.Minute + 60*time.Second); !w.RetriesBy.Equal(want) || !w.MaxAgeBy.Equal(end.Add(6*time.Hour+40*time.Second)) || !strings.Contains(w.Parts[1], "Lambda's default") {
		t.Fatalf("no config: %v %v, want %v; %q", w.RetriesBy, w.MaxAgeBy, want, w.Parts)
	}
}
