package cmd

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/notify"
	"github.com/mfdlq/mfdlq/s3api"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// The names of the helpers that moved to cmdutil with the commands that
// left package cmd (classify, logs, verify, record, triage, mcp, browse)
// while commands still in cmd use them too; as cmdutil_names.go, this file
// shrinks as commands leave.

type (
	sampleRequest = cmdutil.SampleRequest
	sampleSet     = cmdutil.SampleSet
)

const (
	keptSampleSaid    = cmdutil.KeptSampleSaid
	fetchPayloadsHelp = cmdutil.FetchPayloadsHelp
	keyHelp           = cmdutil.KeyHelp
)

func (d *Deps) samples(ctx context.Context, q *sqsapi.Queue, ws *incident.Workspace, r sampleRequest) (sampleSet, error) {
	return d.Samples(ctx, q, ws, r)
}
func readSet[T any](s sampleSet, read func(io.Reader) (T, error)) (T, error) {
	return cmdutil.ReadSet(s, read)
}
func writeMessages(msgs []sqsjson.Message) func(io.Writer) error { return cmdutil.WriteMessages(msgs) }
func chainedDLQError(q *sqsapi.Queue, what, how string) error {
	return cmdutil.ChainedDLQError(q, what, how)
}
func readFile[T any](path, flag string, read func(r io.Reader) (T, error)) (T, error) {
	return cmdutil.ReadFile(path, flag, read)
}
func notRegular(pairs ...string) error { return cmdutil.NotRegular(pairs...) }
func outReplaceable(path string) error { return cmdutil.OutReplaceable(path) }
func validateFetch(n int) error        { return cmdutil.ValidateFetch(n) }
func (d *Deps) payloadFetcher(ctx context.Context, n int) (*s3api.Fetcher, error) {
	return d.PayloadFetcher(ctx, n)
}
func (d *Deps) reportFetches(f *s3api.Fetcher) { d.ReportFetches(f) }
func (d *Deps) policySources(ctx context.Context, dlq *sqsapi.Queue) int {
	return d.PolicySources(ctx, dlq)
}
func sourceLabel(m *sqsjson.Message) string { return cmdutil.SourceLabel(m) }
func severalSources(msgs []sqsjson.Message, policy int) bool {
	return cmdutil.SeveralSources(msgs, policy)
}
func (d *Deps) noteConsumers(ctx context.Context, c sqsapi.Client, dlq *sqsapi.Queue, step string) {
	d.NoteConsumers(ctx, c, dlq, step)
}
func loadClassification(ws *incident.Workspace) (*classify.Classification, error) {
	return cmdutil.LoadClassification(ws)
}
func payloadOf(d *envelope.Detector) dedupe.Payload        { return cmdutil.PayloadOf(d) }
func (d *Deps) printKeyDuplicates(s *dedupe.Summary) error { return d.PrintKeyDuplicates(s) }
func excerpt(s string, n int) string                       { return cmdutil.Excerpt(s, n) }
func utcText(t, now time.Time) string                      { return cmdutil.UTCText(t, now) }

func logSignatures(ws *incident.Workspace) (classify.Signatures, error) {
	return cmdutil.LogSignatures(ws)
}

// runCmd is runAs for a command that has its own package: its
// constructor without a runF runs it, as runAs's run does.
func runCmd[O any](ctx context.Context, sd *Deps, newCmd func(*cmdutil.Deps, func(*O) error) *cobra.Command, argv ...string) error {
	return runAs(ctx, sd, func(d *Deps, _ func(*O) error) *cobra.Command { return newCmd(&d.Deps, nil) }, nil, argv...)
}

// notifyFlag is cmdutil.NotifyFlag under the names redrive binds it with.
type notifyFlag struct{ cmdutil.NotifyFlag }

func (n *notifyFlag) bind(fs *pflag.FlagSet) { n.Bind(fs) }
func (n *notifyFlag) validate() error        { return n.Validate() }
func (d *Deps) planNotify(n *notifyFlag, account string) {
	d.PlanNotify(&n.NotifyFlag, account)
}
func (d *Deps) notifySender() notify.Sender { return d.NotifySender() }
func (d *Deps) notifyQueueStep(ctx context.Context, n *notifyFlag, step string, q *sqsapi.Queue, verdict, moved, report string) {
	d.NotifyQueueStep(ctx, &n.NotifyFlag, step, q, verdict, moved, report)
}
func operator() string { return cmdutil.Operator() }
