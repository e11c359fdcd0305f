// Package deploy_test creates deploy/mfdlq.yaml's stack against the local
// AWS (moto's CloudFormation, through the SDK) and checks what it made.
package deploy_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	cftypes "github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"go.yaml.in/yaml/v3"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

// bootstrapZip is a zip holding an executable named bootstrap, the shape
// `make lambda` builds.
func bootstrapZip(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	h := &zip.FileHeader{Name: "bootstrap", Method: zip.Deflate}
	h.SetMode(0o755)
	w, err := zw.CreateHeader(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("#!/bin/sh\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The template creates on CloudFormation as written: the function on
// provided.al2023 with handler bootstrap and its environment, its
// asynchronous retries at 0, the rule on DLQ alarms' moves into ALARM
// targeting it, the permission, the role and the log group.
func TestStackCreates(t *testing.T) {
	ctx := context.Background()
	cfg := localaws.Config(t)
	name := strings.ToLower(localaws.UniqueName("stack"))
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	for _, b := range []string{name + "-code", name + "-inc"} {
		if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(name + "-code"), Key: aws.String("mfdlq/mfdlq-lambda-arm64.zip"), Body: bytes.NewReader(bootstrapZip(t))}); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile("mfdlq.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cf := cloudformation.NewFromConfig(cfg)
	fn := name + "-triage"
	topic := "arn:aws:sns:us-east-1:123456789012:" + name + "-oncall"
	_, err = cf.CreateStack(ctx, &cloudformation.CreateStackInput{
		StackName: aws.String(name), TemplateBody: aws.String(string(body)), Capabilities: []cftypes.Capability{cftypes.CapabilityCapabilityIam},
		Parameters: []cftypes.Parameter{
			{ParameterKey: aws.String("FunctionName"), ParameterValue: aws.String(fn)},
			{ParameterKey: aws.String("CodeBucket"), ParameterValue: aws.String(name + "-code")},
			{ParameterKey: aws.String("IncidentBucket"), ParameterValue: aws.String(name + "-inc")},
			{ParameterKey: aws.String("NotifyTopicArn"), ParameterValue: aws.String(topic)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := cf.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
	if err != nil || len(st.Stacks) != 1 || st.Stacks[0].StackStatus != cftypes.StackStatusCreateComplete {
		t.Fatalf("stack: %+v %v", st, err)
	}
	res, err := cf.DescribeStackResources(ctx, &cloudformation.DescribeStackResourcesInput{StackName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range res.StackResources {
		got[aws.ToString(r.LogicalResourceId)] = aws.ToString(r.ResourceType)
	}
	// moto 5.2.1's CloudFormation skips AWS::Lambda::EventInvokeConfig
	// (TestTemplateAsWritten reads it from the template).
	for id, typ := range map[string]string{"LogGroup": "AWS::Logs::LogGroup", "Role": "AWS::IAM::Role", "Function": "AWS::Lambda::Function",
		"AlarmRule": "AWS::Events::Rule", "InvokePermission": "AWS::Lambda::Permission"} {
		if got[id] != typ {
			t.Errorf("resource %s: %q, want %s (all: %v)", id, got[id], typ, got)
		}
	}

	lc := lambda.NewFromConfig(cfg)
	f, err := lc.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(fn)})
	if err != nil {
		t.Fatal(err)
	}
	c := f.Configuration
	// moto's CloudFormation does not pass Architectures on (the function
	// reads x86_64): TestTemplateAsWritten checks it in the template.
	if string(c.Runtime) != "provided.al2023" || aws.ToString(c.Handler) != "bootstrap" || aws.ToInt32(c.Timeout) != 300 {
		t.Errorf("function: runtime %s handler %s timeout %d", c.Runtime, aws.ToString(c.Handler), aws.ToInt32(c.Timeout))
	}
	env := c.Environment.Variables
	if env["MFDLQ_INCIDENT_S3"] != "s3://"+name+"-inc/incidents/" || env["MFDLQ_NOTIFY"] != topic {
		t.Errorf("function environment %v", env)
	}
	eb := eventbridge.NewFromConfig(cfg)
	rules, err := eb.ListRuleNamesByTarget(ctx, &eventbridge.ListRuleNamesByTargetInput{TargetArn: c.FunctionArn})
	if err != nil || len(rules.RuleNames) != 1 {
		t.Fatalf("rules targeting the function: %v %v", rules, err)
	}
	rule, err := eb.DescribeRule(ctx, &eventbridge.DescribeRuleInput{Name: aws.String(rules.RuleNames[0])})
	if err != nil {
		t.Fatal(err)
	}
	var pattern struct {
		Source     []string `json:"source"`
		DetailType []string `json:"detail-type"`
		Detail     struct {
			AlarmName []map[string]string `json:"alarmName"`
			State     struct{ Value []string }
		}
	}
	if err := json.Unmarshal([]byte(aws.ToString(rule.EventPattern)), &pattern); err != nil {
		t.Fatalf("pattern %s: %v", aws.ToString(rule.EventPattern), err)
	}
	if strings.Join(pattern.Source, ",") != "aws.cloudwatch" || strings.Join(pattern.DetailType, ",") != "CloudWatch Alarm State Change" ||
		len(pattern.Detail.AlarmName) != 1 || pattern.Detail.AlarmName[0]["wildcard"] != "*dlq*" || strings.Join(pattern.Detail.State.Value, ",") != "ALARM" {
		t.Errorf("rule pattern %s", aws.ToString(rule.EventPattern))
	}
}

// The role is least privilege as written: reads of SQS, CloudWatch, Logs,
// Lambda and CloudTrail, its own log lines, the incidents' objects and the
// topic — nothing that sends, deletes, tags or changes a queue, a mapping
// or an alarm.
func TestRoleIsLeastPrivilege(t *testing.T) {
	body, err := os.ReadFile("mfdlq.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	seen := map[string]bool{}
	for _, a := range regexp.MustCompile(`\b(sqs|s3|sns|lambda|cloudwatch|logs|cloudtrail|sts|iam|events|kms|dynamodb):[A-Za-z*]+`).FindAllString(string(body), -1) {
		if !seen[a] {
			seen[a] = true
			actions = append(actions, a)
		}
	}
	sort.Strings(actions)
	want := []string{
		"cloudtrail:LookupEvents",
		"cloudwatch:DescribeAlarmHistory", "cloudwatch:DescribeAlarms", "cloudwatch:DescribeAlarmsForMetric", "cloudwatch:GetMetricData", "cloudwatch:ListTagsForResource",
		"kms:Decrypt",
		"lambda:GetFunction", "lambda:GetFunctionConfiguration", "lambda:InvokeFunction", "lambda:ListEventSourceMappings",
		"logs:CreateLogStream", "logs:FilterLogEvents", "logs:GetLogEvents", "logs:GetQueryResults", "logs:PutLogEvents", "logs:StartQuery", "logs:StopQuery",
		"s3:GetObject", "s3:ListBucket", "s3:PutObject", "s3:prefix",
		"sns:Publish",
		"sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ListDeadLetterSourceQueues", "sqs:ListQueueTags", "sqs:ListQueues", "sqs:ReceiveMessage",
		"sts:AssumeRole",
	}
	if strings.Join(actions, " ") != strings.Join(want, " ") {
		t.Fatalf("actions in the template:\n%s\nwant:\n%s", strings.Join(actions, " "), strings.Join(want, " "))
	}
	if strings.Contains(string(body), `Action: "*"`) || strings.Contains(string(body), "Action: '*'") {
		t.Fatal("a wildcard action")
	}
}

// resource is one resource of the template, as yaml.v3 reads it: the
// short forms (!Ref, !GetAtt) stay tagged scalars and sequences.
type resource struct {
	Type       string               `yaml:"Type"`
	Properties map[string]yaml.Node `yaml:"Properties"`
}

// What moto's CloudFormation does not model is checked in the template
// itself: the function's asynchronous retries are 0 on $LATEST, and its
// architecture is the Architecture parameter (arm64 by default, x86_64
// allowed: `make lambda` builds both zips).
func TestTemplateAsWritten(t *testing.T) {
	body, err := os.ReadFile("mfdlq.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var tpl struct {
		Parameters map[string]struct {
			Default       string   `yaml:"Default"`
			AllowedValues []string `yaml:"AllowedValues"`
		} `yaml:"Parameters"`
		Resources map[string]resource `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(body, &tpl); err != nil {
		t.Fatal(err)
	}
	ic := tpl.Resources["InvokeConfig"]
	prop := func(r resource, name string) string { n := r.Properties[name]; return n.Tag + " " + n.Value }
	if ic.Type != "AWS::Lambda::EventInvokeConfig" || prop(ic, "MaximumRetryAttempts") != "!!int 0" || prop(ic, "Qualifier") != "!!str $LATEST" || prop(ic, "FunctionName") != "!Ref Function" {
		t.Errorf("InvokeConfig: %s, retries %q, qualifier %q, function %q", ic.Type, prop(ic, "MaximumRetryAttempts"), prop(ic, "Qualifier"), prop(ic, "FunctionName"))
	}
	fn := tpl.Resources["Function"]
	arch := fn.Properties["Architectures"]
	if len(arch.Content) != 1 || arch.Content[0].Tag != "!Ref" || arch.Content[0].Value != "Architecture" {
		t.Errorf("Architectures: %+v", arch)
	}
	a := tpl.Parameters["Architecture"]
	if a.Default != "arm64" || strings.Join(a.AllowedValues, ",") != "arm64,x86_64" {
		t.Errorf("Architecture parameter %+v", a)
	}
	if prop(fn, "Runtime") != "!!str provided.al2023" || prop(fn, "Handler") != "!!str bootstrap" {
		t.Errorf("Function runtime %q handler %q", prop(fn, "Runtime"), prop(fn, "Handler"))
	}
}
