package runbook

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

func TestRunbookFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    RunbookOptions
		wantErr string
	}{
		{args: []string{"--queue", "orders-dlq"}, want: RunbookOptions{Queue: "orders-dlq", Rate: "10"}},
		{args: []string{"--queue", "q", "--log-group", "/aws/lambda/a", "--log-group", "b", "--rate", "max", "--fixed", "v2 parser", "--yes"},
			want: RunbookOptions{Queue: "q", LogGroups: []string{"/aws/lambda/a", "b"}, Rate: "max", Fixed: "v2 parser", Yes: true}},
		{args: []string{}, wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: []string{"--queue", "q", "--rate", "0"}, wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "0"`},
		{args: []string{"--queue", "q", "--rate", "fast"}, wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "fast"`},
		{args: []string{"--queue", "q", "--rate", "20000"}, wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "20000"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			newCmd := func(runF func(*RunbookOptions) error) *cobra.Command { return NewCmdRunbook(d, nil, runF) }
			cmdtest.CheckParse(t, newCmd, tc.args, tc.want, tc.wantErr, cmpopts.IgnoreUnexported(RunbookOptions{}))
		})
	}
}
