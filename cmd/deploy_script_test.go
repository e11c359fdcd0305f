package cmd

import (
	"archive/zip"
	"bytes"
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["lambda-update"] = cmdLambdaUpdate
}

// lambda-update FUNCTION [publish] deploys new code to FUNCTION
// (UpdateFunctionCode with another zip); with publish it also publishes a
// version. moto changes CodeSha256 on the update, LastModified only when a
// version is published.
func cmdLambdaUpdate(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: lambda-update FUNCTION [publish]")
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, err := z.Create("h.py")
	ts.Check(err)
	_, err = w.Write([]byte("def handler(event, context):\n    return {'fixed': True}\n"))
	ts.Check(err)
	ts.Check(z.Close())
	_, err = scriptLambda(ts).UpdateFunctionCode(context.Background(), &lambda.UpdateFunctionCodeInput{
		FunctionName: aws.String(args[0]), ZipFile: b.Bytes(), Publish: len(args) > 1 && args[1] == "publish",
	})
	ts.Check(err)
}
