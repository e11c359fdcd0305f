package browse

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
)

func TestBrowseFlags(t *testing.T) {
	d, _, _ := cmdtest.Deps(t, true)
	d.IO.InTTY = true
	tests := []struct {
		args    []string
		want    BrowseOptions
		wantErr string
	}{
		{args: []string{}, want: BrowseOptions{}},
		{args: []string{"--queue", "orders-dlq", "--ascii", "--log-group", "/aws/lambda/orders"},
			want: BrowseOptions{Queue: "orders-dlq", ASCII: true, LogGroups: []string{"/aws/lambda/orders"}}},
		{args: []string{"--log-group", " "}, wantErr: "--log-group is empty: name a log group such as /aws/lambda/orders"},
		{args: []string{"extra"}, wantErr: `unknown command "extra" for "browse"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			if strings.HasPrefix(tc.wantErr, "unknown") {
				if err := cmdtest.ParseWith(NewCmdBrowse(d, nil, func(*BrowseOptions) error { return nil }), tc.args); err == nil {
					t.Fatal("an argument was accepted")
				}
				return
			}
			cmdtest.CheckParse(t, func(runF func(*BrowseOptions) error) *cobra.Command { return NewCmdBrowse(d, nil, runF) }, tc.args, tc.want, tc.wantErr, cmpopts.IgnoreUnexported(BrowseOptions{}))
		})
	}
}
