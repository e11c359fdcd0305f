package redrive

import (
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
)

func TestRedriveTargetFlags(t *testing.T) {
	for _, tt := range []struct {
		argv    string
		want    redrivestep.TargetRef
		wantErr string
	}{
		{argv: "--to lambda:orders", want: redrivestep.TargetRef{Kind: "lambda", Ref: "orders"}},
		{argv: "--to lambda:orders:live", want: redrivestep.TargetRef{Kind: "lambda", Ref: "orders:live"}},
		{argv: "--to sns:arn:aws:sns:us-east-1:123456789012:orders", want: redrivestep.TargetRef{Kind: "sns", Ref: "arn:aws:sns:us-east-1:123456789012:orders"}},
		{argv: "--to arn:aws:events:us-east-1:123456789012:event-bus/orders", want: redrivestep.TargetRef{Kind: "events", Ref: "arn:aws:events:us-east-1:123456789012:event-bus/orders"}},
		{argv: "--to orders", want: redrivestep.TargetRef{}},
		{argv: "--to arn:aws:sqs:us-east-1:123456789012:orders", want: redrivestep.TargetRef{}},
		{argv: "--to events:", wantErr: "--to events: names nothing: use --to events:BUS (a name or an ARN)"},
		{argv: "--to sns:arn:aws:lambda:us-east-1:1:function:f", wantErr: "--to sns:arn:aws:lambda:us-east-1:1:function:f: that is not a sns ARN (arn:aws:sns:REGION:ACCOUNT:…)"},
		{argv: "--to events:arn:aws:events:us-east-1:1:rule/r", wantErr: "--to events:arn:aws:events:us-east-1:1:rule/r: an EventBridge bus ARN ends in :event-bus/NAME"},
		{argv: "--to sns:orders --native --rate 10", wantErr: "--native moves to SQS queues only: drop --native to redrive to sns:orders"},
		{argv: "--to lambda:f --max-backlog 5", wantErr: "--max-backlog reads a destination queue's depth; lambda:f has none: drop --max-backlog"},
		{argv: "--from-file orders.jsonl --to sns:orders", wantErr: "--from-file moves to SQS queues only: redrive to sns:orders from its DLQ with --queue"},
	} {
		t.Run(tt.argv, func(t *testing.T) {
			var got *RedriveOptions
			c := NewCmdRedrive(cmdutil.NewDeps(&cmdutil.IOStreams{}, nil), func(o *RedriveOptions) error { got = o; return nil })
			argv := strings.Fields(tt.argv)
			if !strings.Contains(tt.argv, "--rate") {
				argv = append(argv, "--rate", "max")
			}
			if !strings.Contains(tt.argv, "--from-file") {
				argv = append(argv, "--queue", "q")
			}
			c.SetArgs(argv)
			c.SilenceErrors, c.SilenceUsage = true, true
			err := c.Execute()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || cmdutil.ExitCode(err, false) != cmdutil.ExitUsage {
					t.Fatalf("error %v, want %q (exit 2)", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.Target != tt.want {
				t.Fatalf("target %+v, err %v; want %+v", got.Target, err, tt.want)
			}
		})
	}
}
