package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// seedDLQ is cmdtest.SeedDLQ.
func seedDLQ(t *testing.T, n int) string { t.Helper(); return cmdtest.SeedDLQ(t, n) }

// testDeps returns production Deps over buffers, with a fixed clock.
func testDeps(t *testing.T, tty bool) (*cmdutil.Deps, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errOut bytes.Buffer
	io := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutTTY: tty, ErrTTY: tty, Color: tty}
	d := cmdutil.NewDeps(io, nil)
	d.Now = func() time.Time { return time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC) }
	d.Global.Output = "table"
	d.Global.Incident = t.TempDir()
	return d, &out, &errOut
}

func TestExitCodes(t *testing.T) {
	d, _, errOut := testDeps(t, false)
	code := run(context.Background(), d, []string{"inspect", "--queue", localaws.UniqueName("nope"), "--incident", t.TempDir()})
	if code != cmdutil.ExitNotFound {
		t.Errorf("missing queue: exit %d; want 5 (%s)", code, errOut)
	}
	if n := strings.Count(errOut.String(), "mfdlq: "); n != 1 {
		t.Errorf("error printed %d times: %q", n, errOut)
	}
	d, _, _ = testDeps(t, false)
	if code := run(context.Background(), d, []string{"inspect", "--bogus"}); code != cmdutil.ExitUsage {
		t.Errorf("unknown flag: exit %d; want 2", code)
	}
}
