package cmd

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// The names package cmd used before the shared parts moved to cmdutil,
// kept while commands move into packages of their own (cmd/<command>/,
// cmdutil/doc.go): a file not yet moved compiles unchanged. A moved
// command uses cmdutil's names; this file shrinks as commands leave, and
// goes with the last one.

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
	tableData        = cmdutil.TableData
	exitError        = cmdutil.ExitError
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

	errInterrupted = cmdutil.ErrInterrupted
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

func (d *Deps) wireClients() { d.WireClients() }

// Errors and exit statuses.

func usageErrorf(format string, args ...any) error { return cmdutil.UsageErrorf(format, args...) }
func checkFailedf(format string, args ...any) error {
	return cmdutil.CheckFailedf(format, args...)
}
func refusedf(format string, args ...any) error { return cmdutil.Refusedf(format, args...) }
func withHint(err error, hint string) error     { return cmdutil.WithHint(err, hint) }

// reportError is cmdutil.ReportError.
func reportError(d *Deps, args []string, err error, code int, hint string) {
	cmdutil.ReportError(&d.Deps, args, err, code, hint)
}

// exitCode is cmdutil.ExitCode with redrive's when-ok wait first: its
// errors carry their own status (cmd/whenok.go).
func exitCode(err error, interrupted bool) int {
	if _, ok := err.(*exitError); !ok && isWhenOKError(err) {
		code, _ := whenOKExit(err)
		return code
	}
	return cmdutil.ExitCode(err, interrupted)
}

// Output and questions.

func (d *Deps) printTable(t tableData) error            { return d.PrintTable(t) }
func (d *Deps) jsonOutput() bool                        { return d.JSONOutput() }
func (d *Deps) infof(format string, args ...any)        { d.Infof(format, args...) }
func (d *Deps) warnf(format string, args ...any)        { d.Warnf(format, args...) }
func (d *Deps) announce(action string, q *sqsapi.Queue) { d.Announce(action, q) }
func (d *Deps) nextStep(format string, args ...any)     { d.NextStep(format, args...) }
func (d *Deps) confirm(question string, yes bool) error { return d.Confirm(question, yes) }
func orUnknown(s string) string                         { return cmdutil.OrUnknown(s) }
func secondsText(f float64) string                      { return cmdutil.SecondsText(f) }

// Flags.

type fleetFlags = cmdutil.FleetFlags

const (
	fetchPayloadsHelp = cmdutil.FetchPayloadsHelp
	keyHelp           = cmdutil.KeyHelp
)

func intFlagUnset(f *pflag.FlagSet, p *int, name, usage string) {
	cmdutil.IntFlagUnset(f, p, name, usage)
}
func parseRate(flag string) (float64, error) { return cmdutil.ParseRate(flag) }

// The queue, the incident and its files.

func (d *Deps) resolveQueue(ctx context.Context, ref string) (sqsapi.Client, *sqsapi.Queue, error) {
	return d.ResolveQueue(ctx, ref)
}
func (d *Deps) checkIncident(queueRef string) error              { return d.CheckIncident(queueRef) }
func (d *Deps) s3Client(ctx context.Context) (*s3.Client, error) { return d.S3Client(ctx) }

// The sample, and what the reading steps say beside it.

func payloadOf(d *envelope.Detector) dedupe.Payload { return cmdutil.PayloadOf(d) }

// Notes and the fleet.

func (d *Deps) callerARN(ctx context.Context) (string, error) { return d.CallerARN(ctx) }
func (d *Deps) noteAhead(ctx context.Context, c note.Tags, q *sqsapi.Queue) func() *note.Note {
	return d.NoteAhead(ctx, c, q)
}
