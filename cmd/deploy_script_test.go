package cmd

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/rogpeppe/go-internal/testscript"
)

// lambda-update FUNCTION [publish] deploys new code to FUNCTION
// (UpdateFunctionCode with another zip); with publish it also publishes a
// version. moto changes CodeSha256 on the update, LastModified only when a
// version is published.
func cmdLambdaUpdate(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: lambda-update FUNCTION [publish]")
	}
	_, err := scriptLambda(ts).UpdateFunctionCode(context.Background(), &lambda.UpdateFunctionCodeInput{
		FunctionName: aws.String(args[0]), ZipFile: localaws.HandlerZip("{'fixed': True}"), Publish: len(args) > 1 && args[1] == "publish",
	})
	ts.Check(err)
}
