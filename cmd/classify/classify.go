// Package classify is mfdlq classify, the runbook's classify step on the
// command line: its flags, its run over the classify step (imported as
// classifystep) and its rendering.
package classify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	classifystep "github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// ClassifyOptions are the flags of mfdlq classify.
type ClassifyOptions struct {
	deps        *cmdutil.Deps
	Queue       string        // --queue: the DLQ (name, URL or ARN)
	From        string        // --from: JSON Lines or {"Messages": [...]} file
	Sample      int           // --sample: messages to peek when sampling live
	Baseline    string        // --baseline: healthy messages, same formats
	Expect      []string      // --expect FIELD=VALUE, repeatable
	Key         string        // --key: the business-operation field
	BurstWindow time.Duration // --burst-window
	BurstShare  float64       // --burst-share
	TrickleSpan time.Duration // --trickle-span
	Payload     string        // --payload: where an in-house envelope keeps its payload
	Force       bool          // --force: peek even though the DLQ has its own redrive policy
	Fetch       int           // --fetch-payloads: offloaded payloads to read from S3

	expect   []classifystep.Expectation
	field    string             // --key when it is a bare field name
	dedupe   *dedupe.Key        // --key as an idempotency key
	envelope *envelope.Detector // from Payload, by validate
}

// NewCmdClassify is mfdlq classify. runF, when set, is called with the
// validated options instead of the run (flag tests).
func NewCmdClassify(d *cmdutil.Deps, runF func(*ClassifyOptions) error) *cobra.Command {
	opts := &ClassifyOptions{deps: d}
	th := classifystep.DefaultThresholds()
	c := &cobra.Command{
		Use:   "classify (--from-file FILE | --queue DLQ) [--baseline FILE] [--expect FIELD=VALUE]",
		Short: runbook.Label(runbook.StepClassify) + ": poison, transient or data — with the evidence",
		Long:  docs.Long("classify") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, opts.incidentQueue, runF, runClassify),
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ: name, URL or ARN (sampled live unless the incident has samples.jsonl)")
	f.StringVar(&opts.From, "from-file", "", "classify messages from FILE (JSON Lines or {\"Messages\": [...]}); no AWS call")
	d.RenamedFlag(f, "from", "from-file")
	f.IntVar(&opts.Sample, "sample", 100, "messages to peek when sampling live (1-10000)")
	f.StringVar(&opts.Baseline, "baseline", "", "healthy messages to compare with (same formats as --from)")
	f.StringArrayVar(&opts.Expect, "expect", nil, "FIELD=VALUE the consumer accepts, e.g. version=1 (repeatable)")
	f.StringVar(&opts.Key, "key", "", "a top-level payload field naming the business operation (pedido_id: counts distinct operations), or "+cmdutil.KeyHelp)
	f.StringVar(&opts.Payload, "payload", "", "jq path of the payload inside an in-house envelope, e.g. .data")
	f.DurationVar(&opts.BurstWindow, "burst-window", th.BurstWindow.Duration, "a burst: --burst-share of a group sent within this long")
	f.Float64Var(&opts.BurstShare, "burst-share", th.BurstShare, "share of a group (0-1] that must fall in --burst-window")
	f.DurationVar(&opts.TrickleSpan, "trickle-span", th.TrickleSpan.Duration, "a trickle: not a burst and sent over at least this long")
	cmdutil.AddForceFlag(f, &opts.Force)
	f.IntVar(&opts.Fetch, "fetch-payloads", 0, cmdutil.FetchPayloadsHelp)
	return c
}

func (o *ClassifyOptions) validate() error {
	switch {
	case o.Queue == "" && o.From == "":
		return cmdutil.UsageErrorf("pass --from-file FILE or --queue DLQ: the messages to classify")
	case o.Sample < 1 || o.Sample > 10000:
		return cmdutil.UsageErrorf("--sample must be between 1 and 10000, got %d", o.Sample)
	case o.BurstWindow <= 0 || o.TrickleSpan <= 0:
		return cmdutil.UsageErrorf("--burst-window and --trickle-span must be > 0")
	case o.BurstShare <= 0 || o.BurstShare > 1:
		return cmdutil.UsageErrorf("--burst-share must be in (0, 1], got %g", o.BurstShare)
	}
	if err := cmdutil.ValidateFetch(o.Fetch); err != nil {
		return err
	}
	if err := cmdutil.NotRegular("--from", o.From, "--baseline", o.Baseline); err != nil {
		return err
	}
	d, err := envelope.NewDetector(o.Payload)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	o.envelope = d
	if err := o.parseKey(); err != nil {
		return err
	}
	o.expect = nil
	for _, s := range o.Expect {
		e, err := classifystep.ParseExpectation(s)
		if err != nil {
			return cmdutil.UsageErrorf("%v", err)
		}
		o.expect = append(o.expect, e)
	}
	return nil
}

func runClassify(ctx context.Context, o *ClassifyOptions) error {
	d := o.deps
	defer d.HoldIncidentLine()() // the answer first, where it was written last
	q, name, err := o.queue(ctx)
	if err != nil {
		return err
	}
	ws, err := d.Workspace(name)
	if err != nil {
		return err
	}
	opts, err := o.classifyOptions(ws, name)
	if err != nil {
		return err
	}
	// A DLQ several queues dead-letter into groups by source even when the
	// sample shows one (classify.Options.BySource).
	opts.BySource = d.PolicySources(ctx, q) > 1
	fetcher, err := d.PayloadFetcher(ctx, o.Fetch)
	if err != nil {
		return err
	}
	if fetcher != nil {
		opts.Fetch = fetcher.Fetch
	}
	res, source, err := o.classify(ctx, q, ws, opts)
	if err != nil {
		return err
	}
	d.ReportFetches(fetcher)
	addChangeEvidence(ws, res)
	res.Look = o.look(q, source, res, len(opts.Signatures))
	verdict, j, err := o.record(ws, q, name, source, res)
	if err != nil {
		return err
	}
	if q != nil {
		if client, err := d.SQS(ctx); err == nil {
			consumer.NoteSeen(ctx, ws, client, d.Lambda, q, "classify", d.Now())
		}
	}
	o.sayJudgement(j, res, verdict)
	if err := o.render(verdict); err != nil {
		return err
	}
	d.NextStep("%s", o.next(verdict, name))
	return nil
}

// incidentQueue is the queue name the incident directory is named after,
// known before any AWS call: --queue's, else the --from file's base name.
func (o *ClassifyOptions) incidentQueue() string {
	if o.Queue == "" {
		return strings.TrimSuffix(filepath.Base(o.From), filepath.Ext(o.From))
	}
	return o.Queue
}

// queue resolves --queue (a harmless read) and names the incident: the
// queue's name, or the --from file's.
func (o *ClassifyOptions) queue(ctx context.Context) (*sqsapi.Queue, string, error) {
	if o.Queue == "" {
		return nil, o.incidentQueue(), nil
	}
	if o.From != "" {
		return nil, sqsapi.NameOf(o.Queue), nil
	}
	_, q, err := o.deps.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return nil, "", err
	}
	return q, q.Name, nil
}

// classifyOptions gathers the baseline and the logs' signatures.
func (o *ClassifyOptions) classifyOptions(ws *incident.Workspace, name string) (classifystep.Options, error) {
	opts := classifystep.Options{Expect: o.expect, Key: o.field, Dedupe: o.dedupe, Queue: name, Envelope: o.envelope, Thresholds: classifystep.Thresholds{
		BurstWindow: classifystep.Duration{Duration: o.BurstWindow}, BurstShare: o.BurstShare,
		TrickleSpan: classifystep.Duration{Duration: o.TrickleSpan}}}
	if o.Baseline != "" {
		load := func(r io.Reader) (*classifystep.Baseline, error) { return classifystep.LoadBaselineWith(r, o.envelope) }
		b, err := cmdutil.ReadFile(o.Baseline, "--baseline", load)
		if err != nil {
			return opts, err
		}
		opts.Baseline = b
	}
	if ws.Has(incident.LogsFile) {
		sigs, err := classifystep.LogSignatures(ws)
		if err != nil {
			return opts, fmt.Errorf("read the logs step's signatures: %w", err)
		}
		opts.Signatures = sigs
		o.deps.Infof("using %s from %s", plural.Of(len(sigs), "error signature"), ws.Path(incident.LogsFile))
	}
	return opts, nil
}

// classify reads the messages where samples says they are and classifies
// them. It returns what it read from.
func (o *ClassifyOptions) classify(ctx context.Context, q *sqsapi.Queue, ws *incident.Workspace, opts classifystep.Options) (*classifystep.Classification, string, error) {
	d := o.deps
	set, err := d.Samples(ctx, q, ws, cmdutil.SampleRequest{Step: "classify", Announce: "sampling", From: o.From, Force: o.Force,
		Peek: sqsapi.PeekOptions{Max: o.Sample, Visibility: 5, Wait: 2}})
	if err != nil {
		return nil, "", err
	}
	if set.Peeked == nil {
		// A file is streamed: a --from export can hold more than fits in memory.
		res, err := cmdutil.ReadSet(set, func(r io.Reader) (*classifystep.Classification, error) { return classifystep.Run(r, opts) })
		return res, set.Source, err
	}
	c := classifystep.New(opts)
	msgs := set.Peeked.Messages
	for i := range msgs {
		if err := c.Add(&msgs[i]); err != nil {
			return nil, "", fmt.Errorf("classify %s: %w", q.Name, err)
		}
	}
	d.Infof("peeked %s of %d visible in %s; saved as %s", plural.Of(len(msgs), "message"), q.Depth.Visible, q.Name, ws.Path(incident.SamplesFile))
	return c.Result(), set.Source, nil
}

// record judges the look against the incident's verdict
// (classify.Judge): a look with at least its evidence is written as
// classification.json, a weaker one is not. The event names the
// incident's verdict after the look, its figures, and the judgement. It
// returns the incident's classification.
func (o *ClassifyOptions) record(ws *incident.Workspace, q *sqsapi.Queue, name, source string, res *classifystep.Classification) (*classifystep.Classification, classifystep.Judgement, error) {
	saved, err := classifystep.Load(ws)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		saved = nil
	case err != nil:
		// Unreadable: nothing to weigh against; this look replaces it.
		o.deps.Warnf("the incident's %s cannot be read (%v): this look replaces it", incident.ClassificationFile, err)
		saved = nil
	}
	j := classifystep.Judge(saved, res)
	verdict := res
	if j.Kept {
		verdict = saved
	} else if err := ws.WriteJSON(incident.ClassificationFile, res); err != nil {
		return nil, j, err
	}
	ev := o.deps.Event("classify", q)
	if q == nil {
		ev.Queue = name
	}
	in := classifystep.Inputs{From: o.From, Source: source, Baseline: o.Baseline, Expect: o.Expect, Key: o.Key,
		BurstWindow: o.BurstWindow.String(), BurstShare: o.BurstShare, TrickleSpan: o.TrickleSpan.String(), Payload: o.Payload}
	fig := verdict.Figures()
	fig.Judgement = &j
	if err := ev.Set(in, fig); err != nil {
		return nil, j, err
	}
	ev.Verdict = string(verdict.Verdict)
	if !j.Kept {
		// A kept verdict's look wrote nothing.
		ev.Artifact = incident.ClassificationFile
	}
	return verdict, j, ws.Append(ev)
}

// next is the recommended next command.
func (o *ClassifyOptions) next(res *classifystep.Classification, name string) string {
	if res.Verdict == classifystep.VerdictUnknown || len(res.Groups) == 0 {
		return fmt.Sprintf("mfdlq logs --queue %s --log-group LOG_GROUP", name)
	}
	return groupAction(&res.Groups[0]) // a real error text, never a placeholder
}

// bareField is a --key that names a top-level payload field.
var bareField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// parseKey reads --key: a bare field name counts the distinct business
// operations (as it always did) and the messages sharing one (.FIELD as
// text); any other value is a jq expression, the consumer's idempotency
// key, whose shared keys are counted.
func (o *ClassifyOptions) parseKey() error {
	o.field, o.dedupe = "", nil
	if o.Key == "" {
		return nil
	}
	expr := o.Key
	if bareField.MatchString(o.Key) {
		o.field, expr = o.Key, fmt.Sprintf(".[%q] | tostring", o.Key)
	}
	k, err := dedupe.Compile(expr, cmdutil.PayloadOf(o.envelope))
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	o.dedupe = k
	return nil
}
