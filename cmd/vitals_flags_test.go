package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestContainFlags(t *testing.T) {
	base := containOptions{Queue: "q", Window: 30 * time.Minute, Sample: 10 * time.Second}
	with := func(f func(*containOptions)) containOptions { o := base; f(&o); return o }
	tests := []struct {
		args    string
		want    containOptions
		wantErr string
	}{
		{args: "--queue q", want: base},
		{args: "--queue q --window 2h --source orders --pause-mapping --yes", want: with(func(o *containOptions) {
			o.Window, o.Source, o.Pause, o.Yes = 2*time.Hour, "orders", true, true
		})},
		{args: "--queue q --cap-concurrency 5 --mapping u-1 --dry-run", want: with(func(o *containOptions) { o.Cap, o.UUID, o.DryRun = 5, "u-1", true })},
		{args: "--queue q --resume-mapping", want: with(func(o *containOptions) { o.Resume = true })},
		{args: "", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: "--queue q --cap-concurrency 0", wantErr: "--cap-concurrency must be between 2 and 1000 (Lambda's limits for SQS), got 0"},
		{args: "--queue q --cap-concurrency 1001", wantErr: "--cap-concurrency must be between 2 and 1000 (Lambda's limits for SQS), got 1001"},
		{args: "--queue q --pause-mapping --cap-concurrency 5", wantErr: "--pause-mapping, --cap-concurrency and --resume-mapping: choose one"},
		{args: "--queue q --mapping u-1", wantErr: "--mapping needs --pause-mapping, --cap-concurrency or --resume-mapping"},
		{args: "--queue q --window 337h", wantErr: "--window must be between 5m and 336h, got 337h0m0s"},
		{args: "--queue q --sample 0s", wantErr: "--sample-for must be between 1s and 5m, got 0s"},
		{args: "--queue q --sample-for 6m", wantErr: "--sample-for must be between 1s and 5m, got 6m0s"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			d, _, _ := testDeps(t, false)
			checkParse(t, d, newContainCmd, strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(containOptions{}))
		})
	}
}

func TestCheckFlags(t *testing.T) {
	topic := "arn:aws:sns:eu-west-1:123456789012:oncall"
	tests := []struct {
		args    string
		want    checkOptions
		wantErr string
	}{
		{args: "--queue q", want: checkOptions{Queue: "q", SDKAttempts: 3, WorkflowAttempts: 1}},
		{args: "--queue q --create-alarm --topic " + topic + " --yes --sdk-attempts 5 --workflow-attempts 2 --read-timeout 20s",
			want: checkOptions{Queue: "q", CreateAlarm: true, Topic: topic, Yes: true, SDKAttempts: 5, WorkflowAttempts: 2, ReadTimeout: 20 * time.Second}},
		{args: "", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: "--queue q --create-alarm", wantErr: "--create-alarm needs --topic: the SNS topic ARN the alarm notifies"},
		{args: "--queue q --topic " + topic, wantErr: "--topic is only used with --create-alarm"},
		{args: "--queue q --create-alarm --topic oncall", wantErr: `--topic "oncall" is not an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME)`},
		{args: "--queue q --workflow-attempts 21", wantErr: "--workflow-attempts must be between 1 and 20, got 21"},
		{args: "--all --prefix pay --sdk-attempts 5", want: checkOptions{All: true, Prefix: "pay", SDKAttempts: 5, WorkflowAttempts: 1}},
		{args: "--all --yes", wantErr: "--all only reads: --topic, --yes and --dry-run belong to --create-alarm on one --queue"},
		{args: "--prefix pay", wantErr: "--accounts, --profiles and --prefix are used with --all"},
		{args: "--all --accounts all", wantErr: "--accounts needs --role-name: the role mfdlq assumes in each account"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			d, _, _ := testDeps(t, false)
			checkParse(t, d, newCheckCmd, strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(checkOptions{}))
		})
	}
}
