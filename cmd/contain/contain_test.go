package contain

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

// TestContainFlags: argv to options, or the exact usage error before any
// AWS call.
func TestContainFlags(t *testing.T) {
	base := ContainOptions{Queue: "q", Window: 30 * time.Minute, Sample: 10 * time.Second}
	with := func(f func(*ContainOptions)) ContainOptions { o := base; f(&o); return o }
	tests := []struct {
		args    string
		want    ContainOptions
		wantErr string
	}{
		{args: "--queue q", want: base},
		{args: "--queue q --window 2h --source orders --pause-mapping --yes", want: with(func(o *ContainOptions) {
			o.Window, o.Source, o.Pause, o.Yes = 2*time.Hour, "orders", true, true
		})},
		{args: "--queue q --cap-concurrency 5 --mapping u-1 --dry-run", want: with(func(o *ContainOptions) { o.Cap, o.UUID, o.DryRun = 5, "u-1", true })},
		{args: "--queue q --resume-mapping", want: with(func(o *ContainOptions) { o.Resume = true })},
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
			d, _, _ := cmdtest.Deps(t, false)
			newCmd := func(runF func(*ContainOptions) error) *cobra.Command { return NewCmdContain(d, runF) }
			cmdtest.CheckParse(t, newCmd, strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(ContainOptions{}))
		})
	}
}
