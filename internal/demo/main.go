// Command demo seeds mfdlq's demo incidents on a local AWS (moto) and runs
// the demo's consumer. It is run by scripts/demo.sh (make demo) and never
// points at a real account: it refuses to run without AWS_ENDPOINT_URL.
//
//	demo seed deploy|outage      create the queues, messages and logs; print
//	                             the runbook's flags as shell variables
//	demo consume deploy|outage   process the source queue until killed
//	demo standins                serve the CloudTrail and alarm-history
//	                             stand-ins until killed; print their
//	                             endpoints as shell variables
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/internal/demo/consumer"
	"github.com/mfdlq/mfdlq/internal/demo/scenario"
	"github.com/mfdlq/mfdlq/plural"
)

func main() {
	if (len(os.Args) < 3 || (os.Args[1] != "seed" && os.Args[1] != "consume")) && (len(os.Args) != 2 || os.Args[1] != "standins") {
		fmt.Fprintln(os.Stderr, "usage: demo seed|consume deploy|outage, or demo standins")
		os.Exit(2)
	}
	if os.Getenv("AWS_ENDPOINT_URL") == "" {
		fmt.Fprintln(os.Stderr, "demo: AWS_ENDPOINT_URL is not set: run it through scripts/with-localaws.sh (make demo)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "seed":
		err = seed(ctx, os.Args[2])
	case "consume":
		err = consume(ctx, os.Args[2])
	case "standins":
		err = standins(ctx)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

// seed prints the scenario as shell assignments on stdout for demo.sh.
func seed(ctx context.Context, name string) error {
	sc, err := scenario.Seed(ctx, name, os.Stderr)
	if err != nil {
		return err
	}
	for k, v := range map[string]string{"DLQ": sc.DLQ, "LOG_GROUP": sc.LogGroup, "FIXED": sc.Fixed, "CAUSE": sc.Cause, "WARNING": sc.Warning, "EXPECT": sc.Expect} {
		fmt.Printf("%s='%s'\n", k, strings.ReplaceAll(v, "'", `'"'"'`))
	}
	return nil
}

func consume(ctx context.Context, name string) error {
	sc, ok := scenario.Scenarios[name]
	if !ok {
		return fmt.Errorf("unknown scenario %q", name)
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	c := sqs.NewFromConfig(cfg)
	out, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(sc.Source)})
	if err != nil {
		return err
	}
	cons := &consumer.Consumer{SQS: c, QueueURL: aws.ToString(out.QueueUrl), AcceptMax: sc.AcceptMax, Log: os.Stderr}
	n, err := cons.Run(ctx)
	fmt.Fprintf(os.Stderr, "consumer: processed and deleted %s from %s (understands versions 1-%d)\n", plural.Of(n, "message"), sc.Source, sc.AcceptMax)
	return err
}
