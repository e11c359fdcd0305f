package changes

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

// TestChangesFlags: argv to options, or the exact usage error before any
// AWS call.
func TestChangesFlags(t *testing.T) {
	tests := []struct {
		args    string
		want    ChangesOptions
		wantErr string
	}{
		{args: "--queue orders-dlq", want: ChangesOptions{Queue: "orders-dlq", Margin: 30 * time.Minute}},
		{args: "--queue orders-dlq --margin 2h --function orders-consumer --function billing --from 2026-11-29T21:00:00Z --to 2026-11-30T01:00:00+01:00 --force",
			want: ChangesOptions{Queue: "orders-dlq", Margin: 2 * time.Hour, Functions: []string{"orders-consumer", "billing"},
				From: "2026-11-29T21:00:00Z", To: "2026-11-30T01:00:00+01:00", Force: true}},
		{args: "", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{args: "--queue q --margin 0s", wantErr: "--margin must be between 1s and 168h0m0s, got 0s"},
		{args: "--queue q --margin 200h", wantErr: "--margin must be between 1s and 168h0m0s, got 200h0m0s"},
		{args: "--queue q --from yesterday", wantErr: `--since "yesterday": give a time as RFC 3339, e.g. 2026-11-29T22:04:00Z`},
		{args: "--queue q --to 22:04", wantErr: `--until "22:04": give a time as RFC 3339, e.g. 2026-11-29T22:04:00Z`},
		{args: "--queue q --from 2026-11-30T00:00:00Z --to 2026-11-29T23:00:00Z", wantErr: "--since 2026-11-30T00:00:00Z is not before --until 2026-11-29T23:00:00Z"},
		{args: "--queue q --since 2026-11-30T00:00:00Z --until 2026-11-29T23:00:00Z", wantErr: "--since 2026-11-30T00:00:00Z is not before --until 2026-11-29T23:00:00Z"},
		{args: "--queue q --function  ", wantErr: "--function is empty: name a Lambda function such as orders-consumer"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			d, _, _ := cmdtest.Deps(t, false)
			args := strings.Fields(tc.args)
			if strings.HasSuffix(tc.args, "--function  ") {
				args = append(args, " ")
			}
			newCmd := func(runF func(*ChangesOptions) error) *cobra.Command { return NewCmdChanges(d, runF) }
			cmdtest.CheckParse(t, newCmd, args, tc.want, tc.wantErr, cmpopts.IgnoreUnexported(ChangesOptions{}))
		})
	}
}
