// Package inspect is `mfdlq inspect`: a harmless peek at the DLQ's
// messages (never deleted), saved as the incident's sample, shown as a
// table, by fingerprint and drift from a baseline, or as JSON.
package inspect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/consumer"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// InspectOptions are the flags of mfdlq inspect.
type InspectOptions struct {
	deps       *cmdutil.Deps
	Queue      string // --queue: the DLQ (name, URL or ARN)
	Max        int    // --max: distinct messages to collect
	Visibility int    // --visibility: seconds each peeked message stays hidden
	Wait       int    // --wait: long-poll seconds per receive
	Out        string // --out: JSON Lines file in the SQS API's message shape
	Force      bool   // --force: peek even though the DLQ has its own redrive policy
	Payload    string // --payload: where an in-house envelope keeps its payload
	Rows       int    // --rows: table rows shown, then a summary by fingerprint; 0 shows all
	Baseline   string // --baseline: healthy messages; the summary shows each fingerprint's drift
	Fetch      int    // --fetch-payloads: offloaded payloads to read from S3
	KeyExpr    string // --key: the consumer's idempotency key (jq)

	envelope *envelope.Detector // from Payload, by validate
	key      *dedupe.Key        // from KeyExpr, by validate
	baseline *classify.Baseline // from Baseline, by runInspect before any AWS call
	fetch    *fetchMemo         // from Fetch
	sources  int                // queues whose redrive policy names the DLQ; 0 unknown
}

// NewCmdInspect is `mfdlq inspect`; runF, when not nil, gets the parsed
// options instead of the run (tests).
func NewCmdInspect(d *cmdutil.Deps, runF func(*InspectOptions) error) *cobra.Command {
	opts := &InspectOptions{deps: d}
	c := &cobra.Command{
		Use:   "inspect --queue DLQ [--max N] [--visibility 5] [--out FILE]",
		Short: runbook.Label(runbook.StepInspect) + ": look at a DLQ's messages without harming them",
		Long:  docs.Long("inspect") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runInspect),
	}
	f := c.Flags()
	cmdutil.AddQueueFlag(f, &opts.Queue)
	f.IntVar(&opts.Max, "max", 10, "distinct messages to collect (1-10000)")
	f.IntVar(&opts.Visibility, "visibility", 5, "seconds each peeked message stays hidden (1-300)")
	opts.Wait = 2
	f.Var(secondsValue{P: &opts.Wait}, "long-poll", "how long each receive waits for messages (1s-20s)")
	d.AliasFlag(f, "wait", "long-poll", intSeconds{P: &opts.Wait})
	f.StringVar(&opts.Out, "out", "", "also write the messages to FILE as JSON Lines")
	cmdutil.AddForceFlag(f, &opts.Force)
	f.StringVar(&opts.Payload, "payload", "", "jq path of the payload inside an in-house envelope, e.g. .data")
	f.IntVar(&opts.Rows, "rows", 0, "show only the first N rows, then how many messages have each fingerprint (0: all rows; JSON has all)")
	f.StringVar(&opts.Baseline, "baseline", "", "healthy messages (a file as for classify): show each fingerprint's drift from them")
	f.IntVar(&opts.Fetch, "fetch-payloads", 0, cmdutil.FetchPayloadsHelp)
	f.StringVar(&opts.KeyExpr, "key", "", cmdutil.KeyHelp)
	return c
}

func (o *InspectOptions) validate() error {
	switch {
	case o.Queue == "":
		return cmdutil.ErrNoQueue
	case o.Max < 1 || o.Max > 10000:
		return cmdutil.UsageErrorf("--max must be between 1 and 10000, got %d", o.Max)
	case o.Visibility < 1 || o.Visibility > 300:
		// 0 cannot be sent: the SDK omits a zero VisibilityTimeout, and SQS
		// then hides the message for the queue's default (30 s or more).
		return cmdutil.UsageErrorf("--visibility must be between 1 and 300 seconds, got %d", o.Visibility)
	case o.Wait < 1 || o.Wait > 20:
		return cmdutil.UsageErrorf("--long-poll must be between 1s and 20s, got %ds", o.Wait)
	case o.Rows < 0:
		return cmdutil.UsageErrorf("--rows must be 0 (all) or more, got %d", o.Rows)
	}
	if err := cmdutil.ValidateFetch(o.Fetch); err != nil {
		return err
	}
	if err := cmdutil.NotRegular("--baseline", o.Baseline); err != nil {
		return err
	}
	if err := cmdutil.OutReplaceable(o.Out); err != nil {
		return err
	}
	d, err := envelope.NewDetector(o.Payload)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	o.envelope = d
	if o.KeyExpr != "" {
		k, err := dedupe.Compile(o.KeyExpr, cmdutil.PayloadOf(d))
		if err != nil {
			return cmdutil.UsageErrorf("%v", err)
		}
		o.key = k
	}
	return nil
}

func runInspect(ctx context.Context, o *InspectOptions) error {
	d := o.deps
	if o.Baseline != "" {
		load := func(r io.Reader) (*classify.Baseline, error) { return classify.LoadBaselineWith(r, o.envelope) }
		b, err := cmdutil.ReadFile(o.Baseline, "--baseline", load)
		if err != nil {
			return err
		}
		o.baseline = b
	}
	client, q, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	d.NoteAhead(ctx, client, q)()
	ws, err := d.Workspace(q.Name)
	if err != nil {
		return err
	}
	set, err := d.Samples(ctx, q, ws, cmdutil.SampleRequest{Step: "inspect", Announce: "inspecting", Fresh: true, Force: o.Force,
		Peek: sqsapi.PeekOptions{Max: o.Max, Visibility: int32(o.Visibility), Wait: int32(o.Wait)}})
	if err != nil {
		return err
	}
	res := *set.Peeked
	exp := d.OldestExpiry(ctx, q, res.Messages)
	if err := o.record(ws, q, res, exp, set.Kept > 0); err != nil {
		return err
	}
	consumer.NoteSeen(ctx, ws, client, d.Lambda, q, "inspect", d.Now())
	fetcher, err := d.PayloadFetcher(ctx, o.Fetch)
	if err != nil {
		return err
	}
	if fetcher != nil {
		o.fetch = &fetchMemo{f: fetcher}
	}
	o.sources = d.PolicySources(ctx, q)
	if err := o.render(res.Messages); err != nil {
		return err
	}
	d.ReportFetches(fetcher)
	d.Infof("%s peeked of %d visible, %d in flight in %s; each was hidden for %ds and is visible again after.",
		plural.Of(len(res.Messages), "message"), q.Depth.Visible, q.Depth.InFlight, q.Name, o.Visibility)
	d.ShowExpiry(q, exp)
	d.NextStep("mfdlq classify --queue %s", q.Name)
	return nil
}

// record writes the sample to --out and appends the event; samples wrote
// it to the incident.
func (o *InspectOptions) record(ws *incident.Workspace, q *sqsapi.Queue, res sqsapi.PeekResult, exp *sqsapi.Expiry, keptSample bool) error {
	d := o.deps
	if o.Out != "" {
		if err := cmdutil.OutReplaceable(o.Out); err != nil {
			return err // replaced by a pipe or a link during the peek
		}
		if err := incident.WriteFileAtomic(o.Out, sqsjson.WriteLines(res.Messages)); err != nil {
			return fmt.Errorf("--out %s: %w", o.Out, err)
		}
	}
	ev := d.Event("inspect", q)
	fig := sqsapi.InspectFigures{
		Sampled: len(res.Messages), Receives: res.Receives,
		Visible: q.Depth.Visible, InFlight: q.Depth.InFlight, Delayed: q.Depth.Delayed,
		FIFO: q.FIFO, ExpiryFigures: sqsapi.ExpiryFiguresOf(exp),
	}
	if err := ev.Set(sqsapi.InspectInputs{Max: o.Max, Visibility: o.Visibility, Out: o.Out}, fig); err != nil {
		return err
	}
	if !keptSample {
		// The artifact it wrote; a peek smaller than the incident's sample
		// wrote none (keptSample).
		ev.Artifact = incident.SamplesFile
	}
	return ws.Append(ev)
}

// inspectRow is one message of inspect's --output json.
type inspectRow struct {
	MessageID         string                                   `json:"message_id"`
	SentTime          *time.Time                               `json:"sent_time"`
	ReceiveCount      *int                                     `json:"receive_count"`
	Size              int                                      `json:"size"`
	Version           *string                                  `json:"version"` // of the payload
	Fingerprint       string                                   `json:"fingerprint"`
	Envelope          envelope.Envelope                        `json:"envelope"`
	Body              string                                   `json:"body"`
	Attributes        map[string]string                        `json:"attributes"`
	MessageAttributes map[string]sqsjson.MessageAttributeValue `json:"message_attributes"`
	// Offloaded is the S3 object an Extended Client pointer names, and
	// what --fetch-payloads read of it.
	Offloaded *offloadedRow `json:"offloaded,omitempty"`
	// Source is the name of the queue SQS moved the message from (its
	// DeadLetterQueueSourceArn, which attributes holds whole); absent
	// without one.
	Source string `json:"source,omitempty"`
	// Key is the message's idempotency key (--key), NoKey why it has none;
	// both absent without --key.
	Key   string `json:"key,omitempty"`
	NoKey string `json:"no_key,omitempty"`
}

// offloadedRow is an offloaded payload in inspect's --output json.
type offloadedRow struct {
	Bucket  string          `json:"bucket"`
	Key     string          `json:"key"`
	Size    int64           `json:"size"`              // -1 unknown
	Fetch   string          `json:"fetch"`             // not-fetched, read, missing, too-large, denied, failed, skipped
	Payload json.RawMessage `json:"payload,omitempty"` // redacted: JSON as it is, else a string
}

func (o *InspectOptions) render(msgs []sqsjson.Message) error {
	d := o.deps
	if d.JSONOutput() {
		rows := make([]inspectRow, 0, len(msgs))
		for i := range msgs {
			r := o.row(&msgs[i])
			if o.key != nil {
				r.Key, r.NoKey = keyOf(o.key, &msgs[i])
			}
			rows = append(rows, r)
		}
		return d.PrintJSON(rows)
	}
	if err := o.renderTable(msgs); err != nil {
		return err
	}
	if o.key == nil {
		return nil
	}
	t := dedupe.NewTally(o.key)
	for i := range msgs {
		t.Add(&msgs[i])
	}
	s := t.Summary(10)
	return d.PrintKeyDuplicates(&s)
}

// keyOf is a message's key, or why it has none.
func keyOf(k *dedupe.Key, m *sqsjson.Message) (key, noKey string) {
	key, err := k.Of(m)
	if err != nil {
		return "", err.(*dedupe.NoKey).Reason
	}
	return key, ""
}

// renderTable is inspect's table of messages, and the summary by
// fingerprint when not every row is shown.
func (o *InspectOptions) renderTable(msgs []sqsjson.Message) error {
	d := o.deps
	t := cmdutil.TableData{Headers: []string{"MESSAGE ID", "SENT", "RECEIVES", "SIZE", "KIND", "VERSION", "PAYLOAD"}}
	bySource := severalSources(msgs, o.sources)
	if bySource {
		t.Headers = slices.Insert(t.Headers, 1, "SOURCE")
	}
	shown := msgs
	if o.Rows > 0 && len(msgs) > o.Rows {
		shown = msgs[:o.Rows]
	}
	for i := range shown {
		r := o.row(&msgs[i])
		sent, count, version := "-", "-", "-"
		if r.SentTime != nil {
			sent = r.SentTime.Format(time.RFC3339)
			if d.IO.OutTTY {
				sent = r.SentTime.UTC().Format("2006-01-02 15:04:05 UTC")
			}
		}
		if r.ReceiveCount != nil {
			count = strconv.Itoa(*r.ReceiveCount)
		}
		if r.Version != nil {
			version = *r.Version
		}
		kind := string(r.Envelope.Kind)
		if r.Envelope.Wraps != "" {
			kind += "/" + string(r.Envelope.Wraps)
		}
		payload := string(r.Envelope.Payload)
		if r.Envelope.Problem != "" {
			payload = r.Envelope.Problem
		}
		if r.Offloaded != nil && r.Offloaded.Payload != nil {
			payload = string(r.Offloaded.Payload)
		}
		size := strconv.Itoa(r.Size)
		if d.IO.OutTTY {
			size = byteSize(r.Size)
		}
		row := []string{r.MessageID, sent, count, size, kind, version, cmdutil.Excerpt(payload, 48)}
		if bySource {
			row = slices.Insert(row, 1, cmdutil.Excerpt(sourceLabel(&msgs[i]), 80))
		}
		t.Rows = append(t.Rows, row)
	}
	if err := d.PrintTable(t); err != nil {
		return err
	}
	switch {
	case o.baseline != nil:
		d.Infof("%d of %s shown; by fingerprint, with the drift from the baseline's %s:", len(shown), plural.Of(len(msgs), "message"), plural.Of(o.baseline.Messages, "message"))
		return d.PrintTable(o.driftTable(msgs))
	case len(shown) == len(msgs):
		return nil
	}
	d.Infof("%d of %s shown; by fingerprint (version and shape):", len(shown), plural.Of(len(msgs), "message"))
	return d.PrintTable(fingerprintTable(msgs))
}

// driftTable is the summary by fingerprint with each one's drift from the
// baseline (--baseline): a type, an enum value, a nested field, one line
// each, "-" when none.
func (o *InspectOptions) driftTable(msgs []sqsjson.Message) cmdutil.TableData {
	opts := classify.Options{Baseline: o.baseline, Envelope: o.envelope}
	if o.fetch != nil {
		opts.Fetch = o.fetch.fetch
	}
	t := cmdutil.TableData{Headers: []string{"MESSAGES", "FINGERPRINT", "DRIFT"}}
	for _, s := range classify.Shapes(msgs, opts) {
		drift := strings.Join(s.Drift, "; ")
		if drift == "" {
			drift = "-"
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(s.Count), untrusted.Fingerprint(s.Fingerprint), untrusted.Shorten(drift, 600)})
	}
	return t
}

// row is toInspectRow with the offloaded payload --fetch-payloads read.
func (o *InspectOptions) row(m *sqsjson.Message) inspectRow {
	r := toInspectRow(m, o.envelope)
	p := r.Envelope.Pointer
	if p == nil {
		return r
	}
	r.Offloaded = &offloadedRow{Bucket: p.Bucket, Key: p.Key, Size: p.Size, Fetch: "not-fetched"}
	if o.fetch == nil {
		return r
	}
	f := o.fetch.fetch(*p)
	r.Offloaded.Fetch = string(f.Status)
	if f.Size >= 0 {
		r.Offloaded.Size = f.Size
	}
	if f.Status == envelope.FetchRead {
		if json.Valid(f.Body) {
			r.Offloaded.Payload = json.RawMessage(f.Body)
		} else {
			r.Offloaded.Payload, _ = json.Marshal(string(f.Body))
		}
	}
	return r
}

// fingerprintTable counts the messages of each fingerprint (classify's
// version and shape of a body), most first: what a hundred rows would
// show, in a few lines.
func fingerprintTable(msgs []sqsjson.Message) cmdutil.TableData {
	counts := map[string]int{}
	for i := range msgs {
		counts[classify.KeyOf(&msgs[i], nil).Fingerprint]++
	}
	fps := make([]string, 0, len(counts))
	for fp := range counts {
		fps = append(fps, fp)
	}
	sort.Slice(fps, func(i, j int) bool {
		if counts[fps[i]] != counts[fps[j]] {
			return counts[fps[i]] > counts[fps[j]]
		}
		return fps[i] < fps[j]
	})
	t := cmdutil.TableData{Headers: []string{"MESSAGES", "FINGERPRINT"}}
	for _, fp := range fps {
		// A body of 2,000 keys has a 100 KiB fingerprint: shortened, with
		// how many keys it left out and a hash that keeps two apart.
		t.Rows = append(t.Rows, []string{strconv.Itoa(counts[fp]), untrusted.Fingerprint(fp)})
	}
	return t
}

func toInspectRow(m *sqsjson.Message, d *envelope.Detector) inspectRow {
	r := inspectRow{
		MessageID: m.MessageId, Size: len(m.Body), Body: m.Body,
		Attributes: m.Attributes, MessageAttributes: m.MessageAttributes,
		Envelope: d.Detect(m),
	}
	r.Fingerprint = classify.FingerprintOf(&r.Envelope, d)
	if t, ok := m.SentTime(); ok {
		r.SentTime = &t
	}
	if m.SourceARN() != "" {
		r.Source = sourceLabel(m)
	}
	if n, ok := m.ReceiveCount(); ok {
		r.ReceiveCount = &n
	}
	if k, v, ok := classify.VersionOf(string(r.Envelope.Payload)); ok && r.Envelope.PayloadJSON {
		s := k + "=" + v
		r.Version = &s
	}
	if r.Attributes == nil {
		r.Attributes = map[string]string{}
	}
	if r.MessageAttributes == nil {
		r.MessageAttributes = map[string]sqsjson.MessageAttributeValue{}
	}
	return r
}

// byteSize says a message's size as a person does: "67 B", "12.3 KiB",
// "1.0 MiB" (SQS's limit is 1 MiB).
func byteSize(n int) string {
	switch {
	case n < 1024:
		return strconv.Itoa(n) + " B"
	case n < 1024*1024:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + " MiB"
}
