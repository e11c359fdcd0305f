package check

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

// TestCheckFlags: argv to options, or the exact usage error before any AWS
// call.
func TestCheckFlags(t *testing.T) {
	topic := "arn:aws:sns:eu-west-1:123456789012:oncall"
	tests := []struct {
		args    string
		want    CheckOptions
		wantErr string
	}{
		{args: "--queue q", want: CheckOptions{Queue: "q", SDKAttempts: 3, WorkflowAttempts: 1}},
		{args: "--queue q --create-alarm --topic " + topic + " --yes --sdk-attempts 5 --workflow-attempts 2 --read-timeout 20s",
			want: CheckOptions{Queue: "q", CreateAlarm: true, Topic: topic, Yes: true, SDKAttempts: 5, WorkflowAttempts: 2, ReadTimeout: 20 * time.Second}},
		{args: "", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: "--queue q --create-alarm", wantErr: "--create-alarm needs --topic: the SNS topic ARN the alarm notifies"},
		{args: "--queue q --topic " + topic, wantErr: "--topic is only used with --create-alarm"},
		{args: "--queue q --create-alarm --topic oncall", wantErr: `--topic "oncall" is not an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME)`},
		{args: "--queue q --workflow-attempts 21", wantErr: "--workflow-attempts must be between 1 and 20, got 21"},
		{args: "--all --prefix pay --sdk-attempts 5", want: CheckOptions{All: true, Prefix: "pay", SDKAttempts: 5, WorkflowAttempts: 1}},
		{args: "--all --yes", wantErr: "--all only reads: --topic, --yes and --dry-run belong to --create-alarm on one --queue"},
		{args: "--prefix pay", wantErr: "--accounts, --profiles and --prefix are used with --all"},
		{args: "--all --accounts all", wantErr: "--accounts needs --role-name: the role mfdlq assumes in each account"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			newCmd := func(runF func(*CheckOptions) error) *cobra.Command { return NewCmdCheck(d, runF) }
			cmdtest.CheckParse(t, newCmd, strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(CheckOptions{}))
		})
	}
}
