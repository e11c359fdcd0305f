package cmd

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
)

// The names package cmd used before the shared parts moved to cmdutil.
// Every command now has a package of its own (cmd/<command>/,
// cmdutil/doc.go), redrive the last; what is left here is what cmd's own
// code (the root, the Lambda handler, the runbook's steps) and its tests
// still spell the old way.

// Deps is cmdutil.Deps with the methods the commands still in package cmd
// define on it (samples, notes, the fleet…). A moved command takes
// &d.Deps.
type Deps struct {
	cmdutil.Deps
}

type (
	GlobalOptions    = cmdutil.GlobalOptions
	IOStreams        = cmdutil.IOStreams
	Prompter         = cmdutil.Prompter
	TerminalPrompter = cmdutil.TerminalPrompter
	exitErrorLine    = cmdutil.ExitErrorLine
)

// Exit statuses: cmdutil's.
const (
	ExitOK          = cmdutil.ExitOK
	ExitUnexpected  = cmdutil.ExitUnexpected
	ExitUsage       = cmdutil.ExitUsage
	ExitCheckFailed = cmdutil.ExitCheckFailed
	ExitAuth        = cmdutil.ExitAuth
	ExitNotFound    = cmdutil.ExitNotFound
	ExitNotProven   = cmdutil.ExitNotProven
	ExitInterrupted = cmdutil.ExitInterrupted

	exitStatusHelp = cmdutil.ExitStatusHelp
	reasonFailed   = cmdutil.ReasonFailed
	reasonRefused  = cmdutil.ReasonRefused
	queueFlagUsage = cmdutil.QueueFlagUsage
)

var (
	// ErrNoTerminal and ErrNoAnswer are cmdutil's Prompter answers.
	ErrNoTerminal = cmdutil.ErrNoTerminal
	ErrNoAnswer   = cmdutil.ErrNoAnswer
)

// SystemIO returns the process's streams (cmdutil.SystemIO).
func SystemIO() *IOStreams { return cmdutil.SystemIO() }

// NewDeps returns the production dependencies over io (cmdutil's, wired in
// place inside cmd's Deps).
func NewDeps(io *IOStreams, args []string) *Deps {
	d := &Deps{}
	d.Wire(io, args)
	return d
}

// Errors and exit statuses.

func usageErrorf(format string, args ...any) error { return cmdutil.UsageErrorf(format, args...) }
func withHint(err error, hint string) error        { return cmdutil.WithHint(err, hint) }

// reportError is cmdutil.ReportError.
func reportError(d *Deps, args []string, err error, code int, hint string) {
	cmdutil.ReportError(&d.Deps, args, err, code, hint)
}

// exitCode is cmdutil.ExitCode.
func exitCode(err error, interrupted bool) int { return cmdutil.ExitCode(err, interrupted) }

// Flags.

type fleetFlags = cmdutil.FleetFlags

// The queue, the incident and its files.

func (d *Deps) s3Client(ctx context.Context) (*s3.Client, error) { return d.S3Client(ctx) }
