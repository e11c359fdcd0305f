package cmd

import (
	"context"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/s3api"
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

	errInterrupted       = cmdutil.ErrInterrupted
	errSilentNotProven   = cmdutil.ErrSilentNotProven
	errSilentCheckFailed = cmdutil.ErrSilentCheckFailed
	errNoQueue           = cmdutil.ErrNoQueue
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
func withHint(err error, hint string) error { return cmdutil.WithHint(err, hint) }
func incidentError(err error) error         { return cmdutil.IncidentError(err) }

// reportError is cmdutil.ReportError.
func reportError(d *Deps, args []string, err error, code int, hint string) {
	cmdutil.ReportError(&d.Deps, args, err, code, hint)
}

// exitCode is cmdutil.ExitCode.
func exitCode(err error, interrupted bool) int { return cmdutil.ExitCode(err, interrupted) }

// Output and questions.

func (d *Deps) printTable(t tableData) error            { return d.PrintTable(t) }
func (d *Deps) fitText(s string) string                 { return d.FitText(s) }
func (d *Deps) printJSON(v any) error                   { return d.PrintJSON(v) }
func (d *Deps) jsonOutput() bool                        { return d.JSONOutput() }
func (d *Deps) infof(format string, args ...any)        { d.Infof(format, args...) }
func (d *Deps) warnf(format string, args ...any)        { d.Warnf(format, args...) }
func (d *Deps) announce(action string, q *sqsapi.Queue) { d.Announce(action, q) }
func (d *Deps) holdIncidentLine() func()                { return d.HoldIncidentLine() }
func (d *Deps) nextStep(format string, args ...any)     { d.NextStep(format, args...) }
func (d *Deps) prompter() Prompter                      { return d.Prompter() }
func writeTSV(w io.Writer, t tableData) error           { return cmdutil.WriteTSV(w, t) }
func utcText(t, now time.Time) string                   { return cmdutil.UTCText(t, now) }

// Flags.

type fleetFlags = cmdutil.FleetFlags

const (
	fetchPayloadsHelp = cmdutil.FetchPayloadsHelp
	keyHelp           = cmdutil.KeyHelp
)

func (d *Deps) renamedFlag(f *pflag.FlagSet, old, new string) { d.RenamedFlag(f, old, new) }
func intFlagUnset(f *pflag.FlagSet, p *int, name, usage string) {
	cmdutil.IntFlagUnset(f, p, name, usage)
}
func addQueueFlag(f *pflag.FlagSet, p *string) { cmdutil.AddQueueFlag(f, p) }
func parseRate(flag string) (float64, error)   { return cmdutil.ParseRate(flag) }
func validateFetch(n int) error                { return cmdutil.ValidateFetch(n) }
func notRegular(pairs ...string) error         { return cmdutil.NotRegular(pairs...) }
func outReplaceable(path string) error         { return cmdutil.OutReplaceable(path) }

func stepRunE[O any](d *Deps, opts *O, validate func() error, incidentQueue func() string,
	runF func(*O) error, run func(context.Context, *O) error) func(*cobra.Command, []string) error {
	return cmdutil.StepRunE(&d.Deps, opts, validate, incidentQueue, runF, run)
}

// The queue, the incident and its files.

func (d *Deps) resolveQueue(ctx context.Context, ref string) (sqsapi.Client, *sqsapi.Queue, error) {
	return d.ResolveQueue(ctx, ref)
}
func (d *Deps) incidentDir(queue string) (string, error)         { return d.IncidentDirFor(queue) }
func (d *Deps) s3Client(ctx context.Context) (*s3.Client, error) { return d.S3Client(ctx) }
func recordedCommand(args []string) []string                     { return cmdutil.RecordedCommand(args) }
func readBuildVersion() cmdutil.BuildVersion                     { return cmdutil.ReadBuildVersion() }
func readFile[T any](path, flag string, read func(r io.Reader) (T, error)) (T, error) {
	return cmdutil.ReadFile(path, flag, read)
}
func loadClassification(ws *incident.Workspace) (*classify.Classification, error) {
	return cmdutil.LoadClassification(ws)
}

// The sample, and what the reading steps say beside it.

type (
	sampleRequest = cmdutil.SampleRequest
	sampleSet     = cmdutil.SampleSet
)

const keptSampleSaid = cmdutil.KeptSampleSaid

func (d *Deps) samples(ctx context.Context, q *sqsapi.Queue, ws *incident.Workspace, r sampleRequest) (sampleSet, error) {
	return d.Samples(ctx, q, ws, r)
}
func incidentSample(ws *incident.Workspace) sampleSet { return cmdutil.IncidentSample(ws) }
func peekRefusal(q *sqsapi.Queue, how string) error   { return cmdutil.PeekRefusal(q, how) }
func readSet[T any](s sampleSet, read func(io.Reader) (T, error)) (T, error) {
	return cmdutil.ReadSet(s, read)
}
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
func payloadOf(d *envelope.Detector) dedupe.Payload        { return cmdutil.PayloadOf(d) }
func (d *Deps) printKeyDuplicates(s *dedupe.Summary) error { return d.PrintKeyDuplicates(s) }

// Notes and the fleet.

type fleetListing = cmdutil.FleetListing

func (d *Deps) listFleet(ctx context.Context, ff *fleetFlags, regions []string, io inventory.Options, notes string) (*fleetListing, error) {
	return d.ListFleet(ctx, ff, regions, io, notes)
}
func runningRedrive(h *lease.Holder, now time.Time) *lease.Holder {
	return cmdutil.RunningRedrive(h, now)
}
