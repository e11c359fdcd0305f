// Package logs is mfdlq logs, the runbook's logs step on the command line:
// its flags, its run over logsearch and its rendering.
package logs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/runbook"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/untrusted"
)

// LogsOptions are the flags of mfdlq logs.
type LogsOptions struct {
	deps       *cmdutil.Deps
	Queue      string        // --queue: the DLQ (name, URL or ARN)
	Groups     []string      // --log-group: CloudWatch Logs groups to search
	IDs        int           // --ids: how many sampled messages to search for
	MessageIDs []string      // --message-id: these messages instead
	From       string        // --from: a samples file instead of the incident's
	LogFile    string        // --log-file: a local log export instead of CloudWatch
	Margin     time.Duration // --margin: widens each message's window
	Since      time.Duration // --since: window of messages with no timestamps
	Context    int           // --context: lines kept after the matching one
	Method     string        // --method: auto, filter or insights
	Timeout    time.Duration // --timeout: longest wait for an Insights query
	Force      bool          // --force: peek even though the DLQ has its own redrive policy
}

// maxLogIDs bounds the messages one run searches for: one Insights query
// string holds them all.
const maxLogIDs = 200

// NewCmdLogs is mfdlq logs. runF, when set, is called with the validated
// options instead of the run (flag tests).
func NewCmdLogs(d *cmdutil.Deps, runF func(*LogsOptions) error) *cobra.Command {
	opts := &LogsOptions{deps: d}
	c := &cobra.Command{
		Use:   "logs --queue DLQ --log-group NAME… [--ids N | --message-id ID…] [--log-file FILE]",
		Short: runbook.Label(runbook.StepLogs) + ": the consumer's real exception, by MessageId",
		Long:  docs.Long("logs") + cmdutil.ExitStatusHelp,
		Args:  cobra.NoArgs,
		RunE:  cmdutil.StepRunE(d, opts, opts.validate, func() string { return opts.Queue }, runF, runLogs),
	}
	f := c.Flags()
	cmdutil.AddQueueFlag(f, &opts.Queue)
	f.StringArrayVar(&opts.Groups, "log-group", nil, "CloudWatch Logs group of the consumer (repeatable)")
	f.IntVar(&opts.IDs, "ids", 3, "how many sampled messages to search for")
	f.StringArrayVar(&opts.MessageIDs, "message-id", nil, "search for this MessageId (repeatable)")
	f.StringVar(&opts.From, "from-file", "", "take messages from this samples file instead of the incident's")
	d.RenamedFlag(f, "from", "from-file")
	f.StringVar(&opts.LogFile, "log-file", "", "search a local log export (JSON Lines or text) instead of CloudWatch")
	f.DurationVar(&opts.Margin, "margin", 30*time.Minute, "widen each message's window by this much on both sides")
	f.DurationVar(&opts.Since, "since", 24*time.Hour, "window for a message with no timestamps: this long until now")
	f.IntVar(&opts.Context, "context", 20, "log lines kept after the matching one (0-1000)")
	f.StringVar(&opts.Method, "method", "auto", "auto, filter (FilterLogEvents) or insights (Logs Insights queries, each under 10,000 characters)")
	f.DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "longest wait for an Insights query")
	cmdutil.AddForceFlag(f, &opts.Force)
	c.MarkFlagsMutuallyExclusive("ids", "message-id")
	c.MarkFlagsMutuallyExclusive("log-file", "log-group")
	return c
}

func (o *LogsOptions) validate() error {
	switch {
	case o.Queue == "":
		return cmdutil.ErrNoQueue
	case o.LogFile == "" && len(o.Groups) == 0:
		return cmdutil.UsageErrorf("--log-group is required: the consumer's CloudWatch Logs group (or --log-file FILE)")
	case o.IDs < 1 || o.IDs > maxLogIDs:
		return cmdutil.UsageErrorf("--ids must be between 1 and %d, got %d", maxLogIDs, o.IDs)
	case len(o.MessageIDs) > maxLogIDs:
		return cmdutil.UsageErrorf("at most %d --message-id, got %d", maxLogIDs, len(o.MessageIDs))
	case o.Margin <= 0 || o.Since <= 0:
		return cmdutil.UsageErrorf("--margin and --since must be > 0")
	case o.Context < 0 || o.Context > 1000:
		return cmdutil.UsageErrorf("--context must be between 0 and 1000, got %d", o.Context)
	case o.Timeout <= 0:
		return cmdutil.UsageErrorf("--timeout must be > 0")
	}
	if err := cmdutil.NotRegular("--from", o.From, "--log-file", o.LogFile); err != nil {
		return err
	}
	switch logsearch.Method(o.Method) {
	case logsearch.MethodAuto, logsearch.MethodFilter, logsearch.MethodInsights:
	default:
		return cmdutil.UsageErrorf("--method %q: use auto, filter or insights", o.Method)
	}
	for _, g := range o.Groups {
		if strings.TrimSpace(g) == "" {
			return cmdutil.UsageErrorf("--log-group is empty: name a log group such as /aws/lambda/orders")
		}
	}
	for _, id := range o.MessageIDs {
		if !logsearch.ValidID(id) {
			return cmdutil.UsageErrorf("--message-id %q is not an SQS MessageId (letters, digits and -)", id)
		}
	}
	if len(o.Groups) > logsearch.MaxInsightsGroups && (o.Method == "insights" || o.Method == "auto" && o.count() > logsearch.FewIDs) {
		return cmdutil.UsageErrorf("an Insights query takes at most %d --log-group, got %d", logsearch.MaxInsightsGroups, len(o.Groups))
	}
	return nil
}

// count is how many messages will be searched for.
func (o *LogsOptions) count() int {
	if len(o.MessageIDs) > 0 {
		return len(o.MessageIDs)
	}
	return o.IDs
}

func runLogs(ctx context.Context, o *LogsOptions) error {
	d := o.deps
	defer d.HoldIncidentLine()() // the answer first, where it was written last
	// The samples on disk are read and their MessageIds checked before any
	// AWS call: an id goes into a filter pattern or a query.
	local, err := o.localSamples()
	if err != nil {
		return err
	}
	_, q, err := d.ResolveQueue(ctx, o.Queue)
	if err != nil {
		return err
	}
	d.Announce("searching logs for", q)
	ws, err := d.Workspace(q.Name)
	if err != nil {
		return err
	}
	samples := local
	if samples == nil {
		if samples, err = o.samples(ctx, q, ws); err != nil {
			return err
		}
	}
	targets := o.targets(samples, ws)
	if len(targets) == 0 {
		return cmdutil.CheckFailedf("no message to search for: %s showed none; pass --message-id ID", q.Name)
	}
	rep, err := o.search(ctx, targets)
	if err != nil {
		return err
	}
	if err := o.record(q, ws, &rep); err != nil {
		return err
	}
	if rep.Truncated {
		d.Warnf("a Logs Insights query returned its 10,000-row maximum: some lines were not read, and a message shown without lines may have some; narrow --margin or search fewer messages (--ids, --message-id)")
	}
	if err := o.render(&rep); err != nil {
		return err
	}
	d.NextStep("mfdlq classify --queue %s (it groups by these signatures)", q.Name)
	return nil
}

// localSamples are the messages whose timestamps give the windows, when
// they are on disk: --from, else the incident's samples.jsonl (nil when
// neither exists: samples will peek). Every MessageId is checked: it will
// go into a filter pattern or a query, and a file can hold anything.
func (o *LogsOptions) localSamples() ([]sqsjson.Message, error) {
	set := cmdutil.SampleSet{Path: o.From, Source: o.From}
	if o.From == "" {
		dir, err := o.deps.IncidentDir(sqsapi.NameOf(o.Queue))
		if err != nil {
			return nil, err
		}
		ws, err := incident.Existing(dir)
		if err != nil || !ws.Has(incident.SamplesFile) {
			return nil, cmdutil.IncidentError(ignoreMissing(err))
		}
		o.deps.Infof("using the incident's sample %s (run mfdlq inspect to take a new one)", ws.Path(incident.SamplesFile))
		set = cmdutil.IncidentSample(ws)
	}
	msgs, err := set.Read()
	if err != nil {
		return nil, err
	}
	for i := range msgs {
		if id := msgs[i].MessageId; !logsearch.ValidID(id) {
			return nil, cmdutil.UsageErrorf("%s: message %d has MessageId %q, not an SQS MessageId (letters, digits, - and _): fix or remove it", set.Path, i+1, untrusted.Shorten(id, 80))
		}
	}
	if msgs == nil {
		msgs = []sqsjson.Message{}
	}
	return msgs, nil
}

// ignoreMissing drops the error of an incident directory that does not
// exist yet: logs will create it.
func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// samples peeks when no sample is on disk: the messages whose timestamps
// give the windows, saved as the incident's samples.jsonl.
func (o *LogsOptions) samples(ctx context.Context, q *sqsapi.Queue, ws *incident.Workspace) ([]sqsjson.Message, error) {
	set, err := o.deps.Samples(ctx, q, ws, cmdutil.SampleRequest{Step: "logs", Force: o.Force,
		Peek: sqsapi.PeekOptions{Max: max(10, o.count()), Visibility: 1, Wait: 1}})
	if err != nil {
		return nil, err
	}
	return set.Read()
}

// targets are the messages to search for, each with its window.
func (o *LogsOptions) targets(samples []sqsjson.Message, ws *incident.Workspace) []logsearch.Wanted {
	d := o.deps
	targets, untimed := logsearch.Targets(samples, o.MessageIDs, classifyGroups(ws), o.IDs, o.Margin, o.Since, d.Now().UTC())
	for _, id := range untimed {
		d.Infof("%s: not in the samples, so no timestamps: searching the last %s", id, o.Since)
	}
	return targets
}

// classifyGroups lists each classify group's example message ids, so the
// search spreads across groups; nil when classify has not run.
func classifyGroups(ws *incident.Workspace) [][]string {
	c, err := classify.Load(ws)
	if err != nil {
		return nil
	}
	groups := make([][]string, 0, len(c.Groups))
	for _, g := range c.Groups {
		groups = append(groups, g.ExampleIDs)
	}
	return groups
}

func (o *LogsOptions) search(ctx context.Context, targets []logsearch.Wanted) (logsearch.Result, error) {
	if o.LogFile != "" {
		f, err := incident.OpenRegular(o.LogFile, os.O_RDONLY)
		var nr *incident.NotRegularError
		if errors.As(err, &nr) {
			return logsearch.Result{}, cmdutil.UsageErrorf("--log-file %s: %s, not a regular file: give the path of a log export", o.LogFile, nr.Kind)
		}
		if err != nil {
			return logsearch.Result{}, cmdutil.UsageErrorf("--log-file: %v", err)
		}
		defer f.Close()
		rep, err := logsearch.SearchFile(f, o.LogFile, targets, o.Context)
		var long *logsearch.LineTooLongError
		if errors.As(err, &long) {
			return rep, cmdutil.UsageErrorf("--log-file %v: give a log export (aws logs filter-log-events, or the lines as text)", err)
		}
		return rep, err
	}
	c, err := o.deps.Logs(ctx)
	if err != nil {
		return logsearch.Result{}, err
	}
	rep, err := logsearch.Search(ctx, c, targets, logsearch.Options{
		Groups: o.Groups, Context: o.Context, Method: logsearch.Method(o.Method),
		Poll: logsearch.Poll{Timeout: o.Timeout},
	})
	var nf *logsearch.GroupNotFoundError
	if errors.As(err, &nf) {
		return rep, cmdutil.UsageErrorf("log group %s does not exist in %s: check --log-group (aws logs describe-log-groups)", nf.Group, o.deps.Region(ctx))
	}
	return rep, err
}

// record writes logs.json and appends the logs event.
func (o *LogsOptions) record(q *sqsapi.Queue, ws *incident.Workspace, rep *logsearch.Result) error {
	in := logsearch.Inputs{LogGroups: o.Groups, LogFile: o.LogFile, Method: string(rep.Method), Margin: o.Margin.String(), MessageIDs: o.MessageIDs}
	return o.deps.AppendStep(ws, q, "logs", incident.LogsFile, rep, in, logsearch.Figures{Searched: rep.Searched, Found: rep.Found}, "")
}
