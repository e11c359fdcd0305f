package lambdaapi

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/arn"
)

// FunctionName is NAME in a function ARN
// (arn:PARTITION:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]), or s as
// it is when it is no function ARN. Event source mappings, on-failure
// records and the fix-deployed check name functions by ARN; people, and
// CloudWatch's FunctionName dimension, by name.
func FunctionName(s string) string {
	a, err := arn.Parse(s)
	if err != nil {
		return s
	}
	kind, rest, _ := strings.Cut(a.Resource, ":")
	name, _, _ := strings.Cut(rest, ":")
	if kind != "function" || name == "" {
		return s
	}
	return name
}
