package cmd

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/rogpeppe/go-internal/testscript"
)

// lambda-pollers UUID MIN MAX puts a mapping in provisioned mode
// (ProvisionedPollerConfig), which moto keeps.
func cmdLambdaPollers(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: lambda-pollers UUID MIN MAX")
	}
	minP, err := strconv.Atoi(args[1])
	ts.Check(err)
	maxP, err := strconv.Atoi(args[2])
	ts.Check(err)
	_, err = scriptLambda(ts).UpdateEventSourceMapping(context.Background(), &lambda.UpdateEventSourceMappingInput{UUID: aws.String(args[0]),
		ProvisionedPollerConfig: &ltypes.ProvisionedPollerConfig{MinimumPollers: aws.Int32(int32(minP)), MaximumPollers: aws.Int32(int32(maxP))}})
	ts.Check(err)
}

// lambda-pollers-are UUID MIN MAX asserts a mapping's provisioned mode.
func cmdLambdaPollersAre(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: lambda-pollers-are UUID MIN MAX")
	}
	out, err := scriptLambda(ts).GetEventSourceMapping(context.Background(), &lambda.GetEventSourceMappingInput{UUID: aws.String(args[0])})
	ts.Check(err)
	got := "none"
	if c := out.ProvisionedPollerConfig; c != nil {
		got = strconv.Itoa(int(aws.ToInt32(c.MinimumPollers))) + " " + strconv.Itoa(int(aws.ToInt32(c.MaximumPollers)))
	}
	if want := args[1] + " " + args[2]; got != want {
		ts.Fatalf("mapping %s has pollers %s, want %s", args[0], got, want)
	}
}
