// Package cmd is mfdlq's command tree: it parses flags, validates them, calls
// one run function per command and renders the result. It builds no AWS
// request itself.
package cmd

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/browse"
	"github.com/mfdlq/mfdlq/cmd/changes"
	"github.com/mfdlq/mfdlq/cmd/check"
	"github.com/mfdlq/mfdlq/cmd/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/cmd/contain"
	"github.com/mfdlq/mfdlq/cmd/export"
	"github.com/mfdlq/mfdlq/cmd/inspect"
	"github.com/mfdlq/mfdlq/cmd/logs"
	"github.com/mfdlq/mfdlq/cmd/ls"
	"github.com/mfdlq/mfdlq/cmd/mcp"
	"github.com/mfdlq/mfdlq/cmd/note"
	"github.com/mfdlq/mfdlq/cmd/record"
	"github.com/mfdlq/mfdlq/cmd/redrive"
	"github.com/mfdlq/mfdlq/cmd/runbook"
	"github.com/mfdlq/mfdlq/cmd/triage"
	"github.com/mfdlq/mfdlq/cmd/verify"
	"github.com/mfdlq/mfdlq/cmd/version"
	"github.com/mfdlq/mfdlq/docs"
)

// Main runs mfdlq with args and returns the process exit status. Under
// the Lambda runtime (AWS_LAMBDA_RUNTIME_API set) it serves the function's
// events instead (cmd/lambda.go).
func Main(args []string) int {
	io := cmdutil.SystemIO()
	d := cmdutil.NewDeps(io, args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	io.Interrupt = ctx.Done()
	if os.Getenv(lambdaRuntimeEnv) != "" {
		return serveLambda(ctx)
	}
	return run(ctx, d, args)
}

// run executes the command tree and maps the outcome to an exit status,
// reporting the error once (cmdutil.ReportError: `mfdlq: <error>`, or one JSON line
// under --output json).
func run(ctx context.Context, d *cmdutil.Deps, args []string) int {
	root := newRootCmd(d)
	if args == nil {
		// cobra reads the process's os.Args[1:] for nil: an empty command
		// line must stay empty (a test binary's `-test.run NAME` became
		// the unknown command NAME).
		args = []string{}
	}
	root.SetArgs(args)
	root.SetIn(d.IO.In)
	root.SetOut(d.IO.Out)
	root.SetErr(d.IO.ErrOut)
	// started tells whether a command's own RunE began: every error before
	// that — cobra's parsing, required flags, flag groups, the global checks —
	// is a usage error.
	started := false
	markStarted(root, &started)
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if d.Global.NoColor {
			d.IO.Color = false
		}
		d.SayRenames()
		return validateGlobal(d.Global)
	}
	d.SetContext(ctx)
	failed, err := root.ExecuteContextC(ctx)
	err = d.FinishS3Incident(ctx, err)
	if err == nil {
		return cmdutil.ExitOK
	}
	code := cmdutil.ExitCode(err, ctx.Err() != nil)
	if !started && code == cmdutil.ExitUnexpected {
		// cobra's own parse errors: unknown flag, unknown command, bad value.
		code = cmdutil.ExitUsage
	}
	cmdutil.ReportError(d, args, err, code, cmdutil.HintFor(err, code, failed, !started))
	return code
}

// runDeps is the cmdutil.Runner cmd gives the commands that run others
// (browse's steps, mcp's tools): run, over a copy of d.
func runDeps(ctx context.Context, d *cmdutil.Deps, args []string) int {
	cp := *d
	return run(ctx, &cp, args)
}

func newRootCmd(d *cmdutil.Deps) *cobra.Command {
	root := &cobra.Command{
		Use:           "mfdlq",
		Short:         "The on-call runbook for an SQS dead-letter queue, as commands",
		Long:          strings.Replace(docs.Long("mfdlq"), "{steps}\n", stepList(), 1) + cmdutil.ExitStatusHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		// Suggestions for a typo come as the error's hint (unknownCommand).
		DisableSuggestions:         true,
		SuggestionsMinimumDistance: 2,
		Args:                       unknownCommand,
	}
	g := d.Global
	pf := root.PersistentFlags()
	pf.StringVar(&g.Region, "region", "", "AWS region (default: AWS_REGION or the profile's)")
	pf.StringVar(&g.Profile, "profile", "", "AWS shared config profile (default: AWS_PROFILE)")
	pf.StringVar(&g.EndpointURL, "endpoint-url", "", "AWS endpoint override, e.g. a local server (default: AWS_ENDPOINT_URL)")
	pf.StringVarP(&g.Output, "output", "o", "table", "output format: table or json")
	pf.BoolVar(&g.NoColor, "no-color", false, "no colour (also NO_COLOR)")
	pf.BoolVarP(&g.Quiet, "quiet", "q", false, "no progress or hints on stderr")
	pf.StringVar(&g.Incident, "incident", "", "incident directory (default: MFDLQ_INCIDENT, else the open incident of the queue in $XDG_STATE_HOME/mfdlq/incidents or ~/.local/state/mfdlq/incidents (or an existing ./incidents), else a new <queue>-<UTC start> there)")
	// Every help ends by pointing to the page to read at 3 a.m.; the
	// commands are listed in the runbook's order, not the alphabet's.
	root.SetUsageTemplate(root.UsageTemplate() + cmdutil.RunbookPointer)
	cobra.EnableCommandSorting = false
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cmdutil.UsageErrorf("%v", err)
	})
	for _, sub := range subcommands(d) {
		adviseExtraArgument(sub)
		root.AddCommand(sub)
	}
	root.AddCommand(version.NewCmdVersion(d, nil))
	version.SetFlag(root)
	// mfdlq alone on a terminal opens the view; piped (or with --help) it
	// prints the help, as it always did.
	root.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 || !d.IO.InTTY || !d.IO.OutTTY {
			return c.Help()
		}
		return browse.OpenView(c.Context(), d, runDeps)
	}
	return root
}

// markStarted wraps the RunE of c and its descendants so that *started
// turns true when one of them begins.
func markStarted(c *cobra.Command, started *bool) {
	if runE := c.RunE; runE != nil {
		c.RunE = func(c *cobra.Command, args []string) error {
			*started = true
			return runE(c, args)
		}
	}
	for _, sub := range c.Commands() {
		markStarted(sub, started)
	}
}

// subcommands lists the runbook steps in the runbook's order.
func subcommands(d *cmdutil.Deps) []*cobra.Command {
	return []*cobra.Command{
		ls.NewCmdLs(d, nil),
		note.NewCmdNote(d, nil),
		contain.NewCmdContain(d, nil),
		triage.NewCmdTriage(d, nil),
		inspect.NewCmdInspect(d, nil),
		changes.NewCmdChanges(d, nil),
		classify.NewCmdClassify(d, nil),
		logs.NewCmdLogs(d, nil),
		export.NewCmdExport(d, nil),
		redrive.NewCmdRedrive(d, nil),
		verify.NewCmdVerify(d, nil),
		record.NewCmdRecord(d, nil),
		check.NewCmdCheck(d, nil),
		runbook.NewCmdRunbook(d, runbookStep, nil),
		browse.NewCmdBrowse(d, runDeps, nil),
		mcp.NewCmdMCP(d, runDeps, nil),
	}
}

func validateGlobal(g *cmdutil.GlobalOptions) error {
	switch g.Output {
	case "table", "json":
	default:
		return cmdutil.UsageErrorf("--output %q: use table or json", g.Output)
	}
	return nil
}
