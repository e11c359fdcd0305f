package lambdaapi

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
)

// FunctionRole returns the ARN of a function's execution role: a change to
// its policies changes what the consumer may do.
func FunctionRole(ctx context.Context, l LambdaAPI, function string) (string, error) {
	fc, err := l.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(function)})
	if err != nil {
		return "", fmt.Errorf("read function %s: %w", function, err)
	}
	return aws.ToString(fc.Role), nil
}
