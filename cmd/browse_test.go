package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestBrowseFlags(t *testing.T) {
	d, _, _ := testDeps(t, true)
	d.IO.InTTY = true
	tests := []struct {
		args    []string
		want    browseOptions
		wantErr string
	}{
		{args: []string{}, want: browseOptions{}},
		{args: []string{"--queue", "orders-dlq", "--ascii", "--log-group", "/aws/lambda/orders"},
			want: browseOptions{Queue: "orders-dlq", ASCII: true, LogGroups: []string{"/aws/lambda/orders"}}},
		{args: []string{"--log-group", " "}, wantErr: "--log-group is empty: name a log group such as /aws/lambda/orders"},
		{args: []string{"extra"}, wantErr: `unknown command "extra" for "browse"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			if strings.HasPrefix(tc.wantErr, "unknown") {
				if err := parseWith(newBrowseCmd(d, func(*browseOptions) error { return nil }), tc.args); err == nil {
					t.Fatal("an argument was accepted")
				}
				return
			}
			checkParse(t, d, newBrowseCmd, tc.args, tc.want, tc.wantErr, cmpopts.IgnoreUnexported(browseOptions{}))
		})
	}
}

// TestBrowseNeedsTerminal: piped, browse refuses with exit 2 before any
// AWS call, and mfdlq alone prints its help, as it always did.
func TestBrowseNeedsTerminal(t *testing.T) {
	d, out, errOut := testDeps(t, false)
	d.AWS = nil // any AWS call would panic
	if code := run(context.Background(), d, []string{"browse"}); code != ExitUsage {
		t.Errorf("browse piped: exit %d, want 2; stderr %q", code, errOut)
	}
	if !strings.Contains(errOut.String(), "browse needs a terminal on stdin and stdout") {
		t.Errorf("stderr %q", errOut)
	}
	if out.Len() != 0 {
		t.Errorf("browse piped wrote to stdout: %q", out)
	}
	d, out, errOut = testDeps(t, false)
	if code := run(context.Background(), d, nil); code != ExitOK {
		t.Errorf("mfdlq piped: exit %d; stderr %q", code, errOut)
	}
	if !strings.Contains(out.String(), "Available Commands") || !strings.Contains(out.String(), "browse") {
		t.Errorf("mfdlq piped did not print the help:\n%s", out)
	}
	d, out, _ = testDeps(t, true)
	d.IO.InTTY = true
	if code := run(context.Background(), d, []string{"--help"}); code != ExitOK || !strings.Contains(out.String(), "Available Commands") {
		t.Errorf("mfdlq --help on a terminal: exit %d:\n%s", code, out)
	}
}
