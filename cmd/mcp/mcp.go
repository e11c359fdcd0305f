// Package mcp is mfdlq mcp: the read-only steps served as tools to an
// incident agent (package mcpserver), each run as one mfdlq command line
// through the Runner cmd gives it.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/mcpserver"
)

// MCPOptions are the flags of mfdlq mcp: none of its own; the global
// --region, --profile, --endpoint-url and --incident reach every tool.
type MCPOptions struct {
	deps *cmdutil.Deps
	exec cmdutil.Runner // runs a tool's command line (cmd's root)
}

// NewCmdMCP is mfdlq mcp; exec runs each tool's command line (cmd's
// root), runF, when set, is called with the options instead of the run
// (tests).
func NewCmdMCP(d *cmdutil.Deps, exec cmdutil.Runner, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{deps: d, exec: exec}
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the read-only steps as tools to an incident agent (Model Context Protocol, stdio)",
		Long:  docs.Long("mcp") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runMCP(c.Context(), opts)
		},
	}
}

// runMCP serves on the command's own stdin and stdout until the client
// closes them (or Ctrl-C); stderr stays free for the operator.
func runMCP(ctx context.Context, o *MCPOptions) error {
	d := o.deps
	// The tools run in this process, and verify (like record and
	// redrive) tells MFDLQ_NOTIFY's target when it ends: the operator's
	// shell may export it, and an agent's look must not post to the team's
	// channel. The guard refuses --notify; this is the same target.
	if err := os.Unsetenv("MFDLQ_NOTIFY"); err != nil {
		return err
	}
	s := mcpserver.New(cmdutil.ReadBuildVersion().Version, o.run)
	d.Infof("mfdlq mcp: serving %d read-only tools on stdin/stdout", len(mcpserver.Tools))
	err := s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(d.IO.In), Writer: nopWriteCloser{d.IO.Out}})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// run is the server's Runner: args as one mfdlq command in this process,
// with --output json, the global AWS and incident flags mfdlq mcp was
// given, no terminal (so nothing can ask a question: stdin is empty) and
// its streams captured. The final argv is guarded again.
func (o *MCPOptions) run(ctx context.Context, args []string) mcpserver.Outcome {
	g := o.deps.Global
	argv := append([]string{}, args...)
	for _, f := range []struct{ name, value string }{
		{"region", g.Region}, {"profile", g.Profile}, {"endpoint-url", g.EndpointURL}, {"incident", g.Incident},
	} {
		if f.value != "" {
			argv = append(argv, "--"+f.name+"="+f.value)
		}
	}
	argv = append(argv, "--output=json")
	var out, errOut bytes.Buffer
	if err := mcpserver.Guard(argv); err != nil {
		line, _ := json.Marshal(map[string]any{"type": "error", "code": cmdutil.ExitUsage, "message": err.Error()})
		return mcpserver.Outcome{Stderr: line, Code: cmdutil.ExitUsage}
	}
	io := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	d := cmdutil.NewDeps(io, argv)
	d.Now = o.deps.Now
	code := o.exec(ctx, d, argv)
	return mcpserver.Outcome{Stdout: out.Bytes(), Stderr: errOut.Bytes(), Code: code}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
