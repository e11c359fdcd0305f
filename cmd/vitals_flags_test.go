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

func TestVerifyFlags(t *testing.T) {
	base := verifyOptions{Queue: "q", Wait: 10 * time.Minute, Interval: 15 * time.Second, Settle: time.Minute, Left: -1}
	tests := []struct {
		args    string
		want    verifyOptions
		wantErr string
	}{
		{args: "--queue q", want: base},
		{args: "--queue q --wait 30m --interval 1m --settle 2m --expect-left 3", want: verifyOptions{Queue: "q", Wait: 30 * time.Minute, Interval: time.Minute, Settle: 2 * time.Minute, Left: 3}},
		{args: "--queue q --wait 0s --settle 0s", want: verifyOptions{Queue: "q", Interval: 15 * time.Second, Left: -1}},
		{args: "", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: "--queue q --wait 25h", wantErr: "--wait must be between 0 and 24h, got 25h0m0s"},
		{args: "--queue q --wait 30s", wantErr: "--wait (30s) must be at least --settle (1m0s)"},
		{args: "--queue q --interval 500ms", wantErr: "--interval must be between 1s and 10m, got 500ms"},
		{args: "--queue q --expect-left -2", wantErr: "--expect-left must be 0 or more, got -2"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			d, _, _ := testDeps(t, false)
			checkParse(t, d, newVerifyCmd, strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(verifyOptions{}))
		})
	}
}
