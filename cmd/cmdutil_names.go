package cmd

import (
	"context"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/s3api"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
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
	secondsValue     = cmdutil.SecondsValue
	intSeconds       = cmdutil.IntSeconds
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
	errNoQueue     = cmdutil.ErrNoQueue
)

// SystemIO returns the process's streams (cmdutil.SystemIO).
func SystemIO() *IOStreams { return cmdutil.SystemIO() }

func usageErrorf(format string, args ...any) error { return cmdutil.UsageErrorf(format, args...) }
func checkFailedf(format string, args ...any) error {
	return cmdutil.CheckFailedf(format, args...)
}
func refusedf(format string, args ...any) error { return cmdutil.Refusedf(format, args...) }
func withHint(err error, hint string) error     { return cmdutil.WithHint(err, hint) }
func orUnknown(s string) string                 { return cmdutil.OrUnknown(s) }

func intFlagUnset(f *pflag.FlagSet, p *int, name, usage string) {
	cmdutil.IntFlagUnset(f, p, name, usage)
}
func addQueueFlag(f *pflag.FlagSet, p *string) { cmdutil.AddQueueFlag(f, p) }

func stepRunE[O any](d *Deps, opts *O, validate func() error, incidentQueue func() string,
	runF func(*O) error, run func(context.Context, *O) error) func(*cobra.Command, []string) error {
	return cmdutil.StepRunE(&d.Deps, opts, validate, incidentQueue, runF, run)
}

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

func (d *Deps) printTable(t tableData) error            { return d.PrintTable(t) }
func (d *Deps) printJSON(v any) error                   { return d.PrintJSON(v) }
func (d *Deps) jsonOutput() bool                        { return d.JSONOutput() }
func (d *Deps) infof(format string, args ...any)        { d.Infof(format, args...) }
func (d *Deps) warnf(format string, args ...any)        { d.Warnf(format, args...) }
func (d *Deps) announce(action string, q *sqsapi.Queue) { d.Announce(action, q) }
func (d *Deps) nextStep(format string, args ...any)     { d.NextStep(format, args...) }
func (d *Deps) confirm(question string, yes bool) error { return d.Confirm(question, yes) }
func (d *Deps) aliasFlag(f *pflag.FlagSet, old, new string, v pflag.Value) {
	d.AliasFlag(f, old, new, v)
}
func (d *Deps) checkIncident(queueRef string) error { return d.CheckIncident(queueRef) }
func (d *Deps) resolveQueue(ctx context.Context, ref string) (sqsapi.Client, *sqsapi.Queue, error) {
	return d.ResolveQueue(ctx, ref)
}
func (d *Deps) s3Client(ctx context.Context) (*s3.Client, error) { return d.S3Client(ctx) }

// NewDeps returns the production dependencies over io (cmdutil's, wired in
// place inside cmd's Deps).
func NewDeps(io *IOStreams, args []string) *Deps {
	d := &Deps{}
	d.Wire(io, args)
	return d
}

func (d *Deps) wireClients() { d.WireClients() }

type (
	fleetFlags = cmdutil.FleetFlags
)

func parseRate(flag string) (float64, error) { return cmdutil.ParseRate(flag) }

func (d *Deps) callerARN(ctx context.Context) (string, error) { return d.CallerARN(ctx) }
func (d *Deps) showNote(ctx context.Context, c note.Tags, q *sqsapi.Queue) *note.Note {
	return d.ShowNote(ctx, c, q)
}
func (d *Deps) noteAhead(ctx context.Context, c note.Tags, q *sqsapi.Queue) func() *note.Note {
	return d.NoteAhead(ctx, c, q)
}

type (
	sampleRequest = cmdutil.SampleRequest
	sampleSet     = cmdutil.SampleSet
)

func (d *Deps) samples(ctx context.Context, q *sqsapi.Queue, ws *incident.Workspace, r sampleRequest) (sampleSet, error) {
	return d.Samples(ctx, q, ws, r)
}
func writeMessages(msgs []sqsjson.Message) func(io.Writer) error { return cmdutil.WriteMessages(msgs) }
func readFile[T any](path, flag string, read func(r io.Reader) (T, error)) (T, error) {
	return cmdutil.ReadFile(path, flag, read)
}
func notRegular(pairs ...string) error { return cmdutil.NotRegular(pairs...) }
func outReplaceable(path string) error { return cmdutil.OutReplaceable(path) }
func loadClassification(ws *incident.Workspace) (*classify.Classification, error) {
	return cmdutil.LoadClassification(ws)
}

const fetchPayloadsHelp = cmdutil.FetchPayloadsHelp

func validateFetch(n int) error { return cmdutil.ValidateFetch(n) }
func (d *Deps) payloadFetcher(ctx context.Context, n int) (*s3api.Fetcher, error) {
	return d.PayloadFetcher(ctx, n)
}
func (d *Deps) reportFetches(f *s3api.Fetcher) { d.ReportFetches(f) }
func (d *Deps) policySources(ctx context.Context, dlq *sqsapi.Queue) int {
	return d.PolicySources(ctx, dlq)
}
func (d *Deps) noteConsumers(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, step string) {
	d.NoteConsumers(ctx, c, dlq, step)
}
func (d *Deps) oldestExpiry(ctx context.Context, q *sqsapi.Queue, msgs []sqsjson.Message) *sqsapi.Expiry {
	return d.OldestExpiry(ctx, q, msgs)
}
func (d *Deps) showExpiry(q *sqsapi.Queue, e *sqsapi.Expiry) { d.ShowExpiry(q, e) }
func secondsText(f float64) string                           { return cmdutil.SecondsText(f) }
