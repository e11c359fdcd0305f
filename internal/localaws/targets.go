package localaws

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
)

// LambdaRole is the role CreateFunction gives functions.
const LambdaRole = "arn:aws:iam::" + Account + ":role/mfdlq-test-lambda"

// HandlerZip is a function's code for CreateFunction: h.py, whose handler
// returns the Python expression ret ("None", "{'fixed': True}").
func HandlerZip(ret string) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, err := z.Create("h.py")
	if err == nil {
		_, err = w.Write([]byte("def handler(event, context):\n    return " + ret + "\n"))
	}
	if err == nil {
		err = z.Close()
	}
	if err != nil {
		// Writing to memory cannot fail.
		panic(err)
	}
	return b.Bytes()
}

// CreateFunction creates a Python function from zip (moto stores it; it
// runs functions only in Docker) and returns its ARN.
func CreateFunction(ctx context.Context, cfg aws.Config, name string, zip []byte) (string, error) {
	if err := createRole(ctx, cfg); err != nil {
		return "", err
	}
	out, err := lambda.NewFromConfig(cfg).CreateFunction(ctx, &lambda.CreateFunctionInput{
		FunctionName: aws.String(name), Runtime: ltypes.RuntimePython312, Handler: aws.String("h.handler"),
		Role: aws.String(LambdaRole), Code: &ltypes.FunctionCode{ZipFile: zip},
	})
	if err != nil {
		return "", fmt.Errorf("create function %s: %w", name, err)
	}
	return aws.ToString(out.FunctionArn), nil
}

// createRole creates LambdaRole with IAM's query API (mfdlq has no IAM
// client); an existing role is fine.
func createRole(ctx context.Context, cfg aws.Config) error {
	form := url.Values{
		"Action": {"CreateRole"}, "Version": {"2010-05-08"}, "RoleName": {"mfdlq-test-lambda"},
		"AssumeRolePolicyDocument": {`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}`},
	}
	body := form.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, aws.ToString(cfg.BaseEndpoint)+"/", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "iam", Region, time.Now()); err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusConflict {
		return fmt.Errorf("create role: HTTP %d", resp.StatusCode)
	}
	return nil
}

// Subscribe creates topic (a name; FIFO when it ends in .fifo) and
// subscribes the queue queueARN to it, raw delivery off, and returns the
// topic's ARN.
func Subscribe(ctx context.Context, cfg aws.Config, topic, queueARN string) (string, error) {
	c := sns.NewFromConfig(cfg)
	in := &sns.CreateTopicInput{Name: aws.String(topic)}
	if strings.HasSuffix(topic, ".fifo") {
		in.Attributes = map[string]string{"FifoTopic": "true"}
	}
	t, err := c.CreateTopic(ctx, in)
	if err != nil {
		return "", fmt.Errorf("create topic %s: %w", topic, err)
	}
	if _, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: t.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(queueARN)}); err != nil {
		return "", fmt.Errorf("subscribe to %s: %w", topic, err)
	}
	return aws.ToString(t.TopicArn), nil
}

// RuleToQueue creates bus, a rule on it matching source, and the queue
// queueARN as the rule's target; it returns the bus ARN.
func RuleToQueue(ctx context.Context, cfg aws.Config, bus, rule, source, queueARN string) (string, error) {
	c := eventbridge.NewFromConfig(cfg)
	b, err := c.CreateEventBus(ctx, &eventbridge.CreateEventBusInput{Name: aws.String(bus)})
	if err != nil {
		return "", fmt.Errorf("create bus %s: %w", bus, err)
	}
	pattern, _ := json.Marshal(map[string][]string{"source": {source}})
	if _, err := c.PutRule(ctx, &eventbridge.PutRuleInput{Name: aws.String(rule), EventBusName: aws.String(bus), EventPattern: aws.String(string(pattern))}); err != nil {
		return "", fmt.Errorf("put rule %s: %w", rule, err)
	}
	if _, err := c.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: aws.String(rule), EventBusName: aws.String(bus),
		Targets: []ebtypes.Target{{Id: aws.String("q"), Arn: aws.String(queueARN)}}}); err != nil {
		return "", fmt.Errorf("put target of %s: %w", rule, err)
	}
	return aws.ToString(b.EventBusArn), nil
}
