package cmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/rogpeppe/go-internal/testscript"
)

// The script commands of offloaded payloads (--fetch-payloads).

// sqs-offload QUEUE BUCKET FILE does what the SQS Extended Client Library
// does for each line of FILE: puts it into BUCKET under a key of its own
// and sends QUEUE the pointer, with the ExtendedPayloadSize attribute.
func cmdSQSOffload(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: sqs-offload QUEUE BUCKET FILE")
	}
	ctx := context.Background()
	s := seeder(ts)
	url, err := s.CreateQueue(ctx, args[0], nil)
	ts.Check(err)
	c := scriptS3(ts)
	n := 0
	for _, line := range strings.Split(ts.ReadFile(args[2]), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		key := fmt.Sprintf("payload-%03d", n)
		n++
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(args[1]), Key: aws.String(key), Body: strings.NewReader(line)})
		ts.Check(err)
		body := `["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"` + args[1] + `","s3Key":"` + key + `"}]`
		_, err = s.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body),
			MessageAttributes: map[string]types.MessageAttributeValue{"ExtendedPayloadSize": {DataType: aws.String("Number"), StringValue: aws.String(strconv.Itoa(len(line)))}}})
		ts.Check(err)
	}
}

// s3-count BUCKET N asserts that BUCKET holds N objects: a fetch never
// deletes one.
func cmdS3Count(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: s3-count BUCKET N")
	}
	out, err := scriptS3(ts).ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(args[0])})
	ts.Check(err)
	if want, _ := strconv.Atoi(args[1]); int(aws.ToInt32(out.KeyCount)) != want {
		ts.Fatalf("bucket %s holds %d objects, want %s", args[0], aws.ToInt32(out.KeyCount), args[1])
	}
}
