package verify

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

// TestVerifyPeekFlags: --no-peek and --force, the two ways past a DLQ with
// its own redrive policy, parse (that they exclude each other, exit 2, is
// in testdata/script/verify_dests.txtar).
func TestVerifyPeekFlags(t *testing.T) {
	base := VerifyOptions{Queue: "q", Wait: 10 * time.Minute, Interval: 15 * time.Second, Settle: time.Minute, Left: -1}
	noPeek, force := base, base
	noPeek.NoPeek, force.Force = true, true
	tests := []struct {
		args string
		want VerifyOptions
	}{
		{args: "--queue q --no-peek", want: noPeek},
		{args: "--queue q --force", want: force},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			cmdtest.CheckParse(t, func(runF func(*VerifyOptions) error) *cobra.Command { return NewCmdVerify(d, runF) },
				strings.Fields(tc.args), tc.want, "", cmpopts.IgnoreUnexported(VerifyOptions{}))
		})
	}
}

func TestVerifyFlags(t *testing.T) {
	base := VerifyOptions{Queue: "q", Wait: 10 * time.Minute, Interval: 15 * time.Second, Settle: time.Minute, Left: -1}
	tests := []struct {
		args    string
		want    VerifyOptions
		wantErr string
	}{
		{args: "--queue q", want: base},
		{args: "--queue q --wait 30m --interval 1m --settle 2m --expect-left 3", want: VerifyOptions{Queue: "q", Wait: 30 * time.Minute, Interval: time.Minute, Settle: 2 * time.Minute, Left: 3}},
		{args: "--queue q --wait 0s --settle 0s", want: VerifyOptions{Queue: "q", Interval: 15 * time.Second, Left: -1}},
		{args: "", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: "--queue q --wait 25h", wantErr: "--wait must be between 0 and 24h, got 25h0m0s"},
		{args: "--queue q --wait 30s", wantErr: "--wait (30s) must be at least --settle (1m0s)"},
		{args: "--queue q --interval 500ms", wantErr: "--interval must be between 1s and 10m, got 500ms"},
		{args: "--queue q --expect-left -2", wantErr: "--expect-left must be 0 or more, got -2"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			cmdtest.CheckParse(t, func(runF func(*VerifyOptions) error) *cobra.Command { return NewCmdVerify(d, runF) },
				strings.Fields(tc.args), tc.want, tc.wantErr, cmpopts.IgnoreUnexported(VerifyOptions{}))
		})
	}
}
