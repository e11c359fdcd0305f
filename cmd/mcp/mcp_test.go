package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// TestMCPRunnerGuardsTheFinalArgv: the runner mfdlq mcp gives the server
// refuses an argv that is not a read-only run before anything runs — a
// redrive that is not a dry run, a mapping pause — with a JSON error line
// and exit 2; and mcp takes no argument.
func TestMCPRunnerGuardsTheFinalArgv(t *testing.T) {
	d, _, _ := cmdtest.Deps(t, false)
	exec := func(context.Context, *cmdutil.Deps, []string) int { t.Fatal("a refused argv ran"); return 0 }
	o := &MCPOptions{deps: d, exec: exec}
	for _, args := range [][]string{
		{"redrive", "--queue=q", "--rate=10"},
		{"contain", "--queue=q", "--pause-mapping=true"},
		{"note", "--queue=q"},
	} {
		out := o.run(context.Background(), args)
		var e struct {
			Type    string `json:"type"`
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if out.Code != cmdutil.ExitUsage || json.Unmarshal(out.Stderr, &e) != nil || e.Type != "error" || !strings.HasPrefix(e.Message, "mcp: ") || len(out.Stdout) != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2, one JSON error line, nothing run", args, out.Code, out.Stderr, out.Stdout)
		}
	}
	called := false
	err := cmdtest.ParseWith(NewCmdMCP(d, exec, func(*MCPOptions) error { called = true; return nil }), []string{"extra"})
	if err == nil || called {
		t.Errorf("mfdlq mcp extra: %v, run called %v; want an error before the run (the root's exit 2)", err, called)
	}
}
