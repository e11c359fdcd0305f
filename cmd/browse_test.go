package cmd

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// TestBrowseNeedsTerminal: piped, browse refuses with exit 2 before any
// AWS call, and mfdlq alone prints its help, as it always did — whatever
// the process's own arguments: cobra reads os.Args for a nil command
// line, and a test binary run with `-test.run NAME` (the space form) got
// "unknown command NAME". Not parallel: it sets os.Args.
func TestBrowseNeedsTerminal(t *testing.T) {
	for _, argv := range [][]string{{"-test.run", "TestBrowseNeedsTerminal"}, {"-test.run=TestBrowseNeedsTerminal"}, {"browse"}} {
		saved := os.Args
		os.Args = append([]string{saved[0]}, argv...)
		d, out, errOut := testDeps(t, false)
		code := run(context.Background(), d, nil)
		os.Args = saved
		if code != cmdutil.ExitOK || !strings.Contains(out.String(), "Available Commands") {
			t.Errorf("mfdlq piped, the process run with %q: exit %d; stderr %q", argv, code, errOut)
		}
	}

	d, out, errOut := testDeps(t, false)
	d.AWS = nil // any AWS call would panic
	if code := run(context.Background(), d, []string{"browse"}); code != cmdutil.ExitUsage {
		t.Errorf("browse piped: exit %d, want 2; stderr %q", code, errOut)
	}
	if !strings.Contains(errOut.String(), "browse needs a terminal on stdin and stdout") {
		t.Errorf("stderr %q", errOut)
	}
	if out.Len() != 0 {
		t.Errorf("browse piped wrote to stdout: %q", out)
	}
	d, out, errOut = testDeps(t, false)
	if code := run(context.Background(), d, nil); code != cmdutil.ExitOK {
		t.Errorf("mfdlq piped: exit %d; stderr %q", code, errOut)
	}
	if !strings.Contains(out.String(), "Available Commands") || !strings.Contains(out.String(), "browse") {
		t.Errorf("mfdlq piped did not print the help:\n%s", out)
	}
	d, out, _ = testDeps(t, true)
	d.IO.InTTY = true
	if code := run(context.Background(), d, []string{"--help"}); code != cmdutil.ExitOK || !strings.Contains(out.String(), "Available Commands") {
		t.Errorf("mfdlq --help on a terminal: exit %d:\n%s", code, out)
	}
}
