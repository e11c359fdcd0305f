package cmd

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

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// classifyOptions are the flags of mfdlq classify.
type classifyOptions struct {
	deps        *Deps
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

	expect   []classify.Expectation
	field    string             // --key when it is a bare field name
	dedupe   *dedupe.Key        // --key as an idempotency key
	envelope *envelope.Detector // from Payload, by validate
}

func newClassifyCmd(d *Deps, runF func(*classifyOptions) error) *cobra.Command {
	opts := &classifyOptions{deps: d}
	th := classify.DefaultThresholds()
	c := &cobra.Command{
		Use:   "classify (--from-file FILE | --queue DLQ) [--baseline FILE] [--expect FIELD=VALUE]",
		Short: runbook.Label(runbook.StepClassify) + ": poison, transient or data — with the evidence",
		Long:  docs.Long("classify") + exitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  stepRunE(d, opts, opts.validate, opts.incidentQueue, runF, runClassify),
	}
	f := c.Flags()
	f.StringVar(&opts.Queue, "queue", "", "the DLQ: name, URL or ARN (sampled live unless the incident has samples.jsonl)")
	f.StringVar(&opts.From, "from-file", "", "classify messages from FILE (JSON Lines or {\"Messages\": [...]}); no AWS call")
	d.renamedFlag(f, "from", "from-file")
	f.IntVar(&opts.Sample, "sample", 100, "messages to peek when sampling live (1-10000)")
	f.StringVar(&opts.Baseline, "baseline", "", "healthy messages to compare with (same formats as --from)")
	f.StringArrayVar(&opts.Expect, "expect", nil, "FIELD=VALUE the consumer accepts, e.g. version=1 (repeatable)")
	f.StringVar(&opts.Key, "key", "", "a top-level payload field naming the business operation (pedido_id: counts distinct operations), or "+keyHelp)
	f.StringVar(&opts.Payload, "payload", "", "jq path of the payload inside an in-house envelope, e.g. .data")
	f.DurationVar(&opts.BurstWindow, "burst-window", th.BurstWindow.Duration, "a burst: --burst-share of a group sent within this long")
	f.Float64Var(&opts.BurstShare, "burst-share", th.BurstShare, "share of a group (0-1] that must fall in --burst-window")
	f.DurationVar(&opts.TrickleSpan, "trickle-span", th.TrickleSpan.Duration, "a trickle: not a burst and sent over at least this long")
	f.BoolVar(&opts.Force, "force", false, "peek even though the DLQ has its own redrive policy")
	f.IntVar(&opts.Fetch, "fetch-payloads", 0, fetchPayloadsHelp)
	return c
}

func (o *classifyOptions) validate() error {
	switch {
	case o.Queue == "" && o.From == "":
		return usageErrorf("pass --from-file FILE or --queue DLQ: the messages to classify")
	case o.Sample < 1 || o.Sample > 10000:
		return usageErrorf("--sample must be between 1 and 10000, got %d", o.Sample)
	case o.BurstWindow <= 0 || o.TrickleSpan <= 0:
		return usageErrorf("--burst-window and --trickle-span must be > 0")
	case o.BurstShare <= 0 || o.BurstShare > 1:
		return usageErrorf("--burst-share must be in (0, 1], got %g", o.BurstShare)
	}
	if err := validateFetch(o.Fetch); err != nil {
		return err
	}
	if err := notRegular("--from", o.From, "--baseline", o.Baseline); err != nil {
		return err
	}
	d, err := envelope.NewDetector(o.Payload)
	if err != nil {
		return usageErrorf("%v", err)
	}
	o.envelope = d
	if err := o.parseKey(); err != nil {
		return err
	}
	o.expect = nil
	for _, s := range o.Expect {
		e, err := classify.ParseExpectation(s)
		if err != nil {
			return usageErrorf("%v", err)
		}
		o.expect = append(o.expect, e)
	}
	return nil
}

func runClassify(ctx context.Context, o *classifyOptions) error {
	d := o.deps
	defer d.holdIncidentLine()() // the answer first, where it was written last
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
	opts.BySource = d.policySources(ctx, q) > 1
	fetcher, err := d.payloadFetcher(ctx, o.Fetch)
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
	d.reportFetches(fetcher)
	addChangeEvidence(ws, res)
	res.Look = o.look(q, source, res, len(opts.Signatures))
	verdict, j, err := o.record(ws, q, name, source, res)
	if err != nil {
		return err
	}
	if q != nil {
		if client, err := d.SQS(ctx); err == nil {
			d.noteConsumers(ctx, client, q, "classify")
		}
	}
	o.sayJudgement(j, res, verdict)
	if err := o.render(verdict); err != nil {
		return err
	}
	d.nextStep("%s", o.next(verdict, name))
	return nil
}

// incidentQueue is the queue name the incident directory is named after,
// known before any AWS call: --queue's, else the --from file's base name.
func (o *classifyOptions) incidentQueue() string {
	if o.Queue == "" {
		return strings.TrimSuffix(filepath.Base(o.From), filepath.Ext(o.From))
	}
	return o.Queue
}

// queue resolves --queue (a harmless read) and names the incident: the
// queue's name, or the --from file's.
func (o *classifyOptions) queue(ctx context.Context) (*sqsapi.Queue, string, error) {
	if o.Queue == "" {
		return nil, o.incidentQueue(), nil
	}
	if o.From != "" {
		return nil, sqsapi.NameOf(o.Queue), nil
	}
	_, q, err := o.deps.resolveQueue(ctx, o.Queue)
	if err != nil {
		return nil, "", err
	}
	return q, q.Name, nil
}

// classifyOptions gathers the baseline and the logs' signatures.
func (o *classifyOptions) classifyOptions(ws *incident.Workspace, name string) (classify.Options, error) {
	opts := classify.Options{Expect: o.expect, Key: o.field, Dedupe: o.dedupe, Queue: name, Envelope: o.envelope, Thresholds: classify.Thresholds{
		BurstWindow: classify.Duration{Duration: o.BurstWindow}, BurstShare: o.BurstShare,
		TrickleSpan: classify.Duration{Duration: o.TrickleSpan}}}
	if o.Baseline != "" {
		load := func(r io.Reader) (*classify.Baseline, error) { return classify.LoadBaselineWith(r, o.envelope) }
		b, err := readFile(o.Baseline, "--baseline", load)
		if err != nil {
			return opts, err
		}
		opts.Baseline = b
	}
	if ws.Has(incident.LogsFile) {
		sigs, err := logSignatures(ws)
		if err != nil {
			return opts, fmt.Errorf("read the logs step's signatures: %w", err)
		}
		opts.Signatures = sigs
		o.deps.infof("using %s from %s", plural.Of(len(sigs), "error signature"), ws.Path(incident.LogsFile))
	}
	return opts, nil
}

// logSignatures reads the logs step's signatures, by MessageId, for
// classify to group by; logs.json is read without following a link.
func logSignatures(ws *incident.Workspace) (classify.Signatures, error) {
	b, err := ws.ReadFile(incident.LogsFile)
	if err != nil {
		return nil, err
	}
	rep, err := logsearch.Parse(b, ws.Path(incident.LogsFile))
	if err != nil {
		return nil, err
	}
	return rep.Signatures(), nil
}

// classify reads the messages where samples says they are and classifies
// them. It returns what it read from.
func (o *classifyOptions) classify(ctx context.Context, q *sqsapi.Queue, ws *incident.Workspace, opts classify.Options) (*classify.Classification, string, error) {
	d := o.deps
	set, err := d.samples(ctx, q, ws, sampleRequest{Step: "classify", Announce: "sampling", From: o.From, Force: o.Force,
		Peek: sqsapi.PeekOptions{Max: o.Sample, Visibility: 5, Wait: 2}})
	if err != nil {
		return nil, "", err
	}
	if set.Peeked == nil {
		// A file is streamed: a --from export can hold more than fits in memory.
		res, err := readSet(set, func(r io.Reader) (*classify.Classification, error) { return classify.Run(r, opts) })
		return res, set.Source, err
	}
	c := classify.New(opts)
	msgs := set.Peeked.Messages
	for i := range msgs {
		if err := c.Add(&msgs[i]); err != nil {
			return nil, "", fmt.Errorf("classify %s: %w", q.Name, err)
		}
	}
	d.infof("peeked %s of %d visible in %s; saved as %s", plural.Of(len(msgs), "message"), q.Depth.Visible, q.Name, ws.Path(incident.SamplesFile))
	return c.Result(), set.Source, nil
}

// record judges the look against the incident's verdict
// (classify.Judge): a look with at least its evidence is written as
// classification.json, a weaker one is not. The event names the
// incident's verdict after the look, its figures, and the judgement. It
// returns the incident's classification.
func (o *classifyOptions) record(ws *incident.Workspace, q *sqsapi.Queue, name, source string, res *classify.Classification) (*classify.Classification, classify.Judgement, error) {
	saved, err := loadClassification(ws)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		saved = nil
	case err != nil:
		// Unreadable: nothing to weigh against; this look replaces it.
		o.deps.warnf("the incident's %s cannot be read (%v): this look replaces it", incident.ClassificationFile, err)
		saved = nil
	}
	j := classify.Judge(saved, res)
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
	in := classify.Inputs{From: o.From, Source: source, Baseline: o.Baseline, Expect: o.Expect, Key: o.Key,
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
func (o *classifyOptions) next(res *classify.Classification, name string) string {
	if res.Verdict == classify.VerdictUnknown || len(res.Groups) == 0 {
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
func (o *classifyOptions) parseKey() error {
	o.field, o.dedupe = "", nil
	if o.Key == "" {
		return nil
	}
	expr := o.Key
	if bareField.MatchString(o.Key) {
		o.field, expr = o.Key, fmt.Sprintf(".[%q] | tostring", o.Key)
	}
	k, err := dedupe.Compile(expr, payloadOf(o.envelope))
	if err != nil {
		return usageErrorf("%v", err)
	}
	o.dedupe = k
	return nil
}
