package browse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/aws/aws-sdk-go-v2/aws"
	"path/filepath"
	"strings"
	"sync"

	browsestep "github.com/mfdlq/mfdlq/browse"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// browseBackend is the view's Backend. Every step the view takes runs the
// command itself, in process, with the view's streams and prompter: the
// same flags' defaults, plan, question, guardrails, incident events and
// artifacts as the command typed in a shell — nothing is re-implemented
// for the view. Only the fleet is read directly, as mfdlq ls does (ls
// records nothing).
type browseBackend struct {
	d         *cmdutil.Deps
	exec      cmdutil.Runner      // runs a step's command line (cmd's root)
	logGroups []string            // --log-group, else the consumer's /aws/lambda/<function>
	fleet     *cmdutil.FleetFlags // --accounts, --profiles: the fleet opens on every account

	mu        sync.Mutex
	consumers map[string][]string // queue → log groups of its Lambda consumers (from contain)
	// configs reach each account of the fleet (the role assumed, the
	// profile): a step on a DLQ of another account acts with them, never
	// with the credentials the view was started with.
	configs map[string]aws.Config
}

var _ browsestep.Backend = (*browseBackend)(nil)

// NewBackend is the view's Backend over d: each step runs its command
// line through exec (cmd's root), on the accounts of fleet (nil: the
// credentials' own) and, for l, the log groups of logGroups (nil: the
// consumers' /aws/lambda/<function>).
func NewBackend(d *cmdutil.Deps, exec cmdutil.Runner, fleet *cmdutil.FleetFlags, logGroups []string) browsestep.Backend {
	return &browseBackend{d: d, exec: exec, fleet: fleet, logGroups: logGroups}
}

// Fleet lists every DLQ as mfdlq ls does — across the accounts of
// --accounts or --profiles, with the note on each DLQ holding messages.
func (b *browseBackend) Fleet(ctx context.Context) (*browsestep.Fleet, error) {
	ff := b.fleet
	if ff == nil {
		ff = &cmdutil.FleetFlags{}
	}
	l, err := b.d.ListFleet(ctx, ff, nil, inventory.Options{Concurrency: 8, Now: b.d.Now}, "non-empty")
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.configs = l.Configs
	b.mu.Unlock()
	now := b.d.Now()
	f := &browsestep.Fleet{DLQs: l.DLQs, Summary: inventory.Summarize(l.DLQs, now), Warnings: l.Warnings, At: now,
		Notes: map[string]*note.Note{}, Redrives: map[string]string{}, Accounts: ff.Active(), Unreadable: l.Unreadable}
	for i, h := range l.Leases {
		if h != nil {
			f.Redrives[l.DLQs[i].ARN] = h.Describe()
		}
	}
	for i, n := range l.Notes {
		if n != nil {
			f.Notes[l.DLQs[i].ARN] = n
		}
	}
	return f, nil
}

// Contain runs mfdlq contain --queue queue. An alive DLQ exits 3 with its
// report on stdout: the report is the answer.
func (b *browseBackend) Contain(ctx context.Context, queue string) (*contain.Result, error) {
	out, err := b.step(ctx, queue, stepRun{args: []string{"contain", "--queue", queue}})
	var res contain.Result
	if len(bytes.TrimSpace(out)) > 0 && json.Unmarshal(out, &res) == nil {
		b.noteConsumers(queue, res.Mappings)
		return &res, nil
	}
	return nil, err
}

// Classify runs mfdlq classify --queue queue.
func (b *browseBackend) Classify(ctx context.Context, queue string) (*browsestep.Classified, error) {
	var said []string
	out, err := b.step(ctx, queue, stepRun{args: []string{"classify", "--queue", queue}, lines: &said})
	if err != nil {
		return nil, err
	}
	var res classify.Classification
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("classify's output: %w", err)
	}
	dir, _ := b.incident(queue)
	return &browsestep.Classified{Result: &res, Incident: dir, Lines: said}, nil
}

// browsePeek is how many messages a group's new peek (r) collects: the
// view shows a sample, never the whole DLQ (classify's default sample).
const browsePeek = 100

// Group reads the incident's sample — classify's, from its harmless peek —
// and keeps the messages classify puts in group, decided as redrive
// --group decides it. fresh runs mfdlq inspect first (a new peek,
// recorded): a peek right after classify's finds its messages hidden.
func (b *browseBackend) Group(ctx context.Context, queue, group string, fresh bool) (*browsestep.GroupMessages, error) {
	var said []string
	source := "the incident's sample"
	if fresh {
		args := []string{"inspect", "--queue", queue, "--max", fmt.Sprint(browsePeek)}
		if _, err := b.step(ctx, queue, stepRun{args: args, lines: &said}); err != nil {
			return nil, err
		}
		source = "a new peek"
		for _, l := range said {
			if strings.HasPrefix(l, cmdutil.KeptSampleSaid) {
				// The peek was smaller than the incident's sample, which
				// stays what the view shows (keptSample).
				source = "the incident's sample (larger than the new peek)"
			}
		}
	}
	dir, err := b.incident(queue)
	if err != nil {
		return nil, err
	}
	ws, err := incident.Open(dir)
	if err != nil {
		return nil, err
	}
	of, err := classify.GroupOf(ws, group)
	if err != nil {
		return nil, err
	}
	msgs, err := cmdutil.ReadSet(cmdutil.IncidentSample(ws), sqsjson.ReadAll)
	if err != nil {
		return nil, err
	}
	res := &browsestep.GroupMessages{Peeked: len(msgs), Source: source}
	for i := range msgs {
		if of(&msgs[i]) == group {
			res.Messages = append(res.Messages, msgs[i])
		}
	}
	return res, nil
}

// Logs runs mfdlq logs --queue queue --message-id id on the log groups of
// --log-group, else of the consumers contain found.
func (b *browseBackend) Logs(ctx context.Context, queue, id string) (*logsearch.Result, error) {
	groups := b.logGroups
	if len(groups) == 0 {
		b.mu.Lock()
		groups = b.consumers[queue]
		b.mu.Unlock()
	}
	if len(groups) == 0 {
		return nil, cmdutil.UsageErrorf("no consumer's log group known for %s: pass --log-group to mfdlq browse", queue)
	}
	args := []string{"logs", "--queue", queue, "--message-id", id}
	for _, g := range groups {
		args = append(args, "--log-group", g)
	}
	out, err := b.step(ctx, queue, stepRun{args: args})
	if err != nil {
		return nil, err
	}
	var res logsearch.Result
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("logs' output: %w", err)
	}
	return &res, nil
}

func (b *browseBackend) noteConsumers(queue string, ms []lambdaapi.Mapping) {
	var groups []string
	for _, m := range ms {
		if m.Function != "" {
			groups = append(groups, "/aws/lambda/"+m.Function)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.consumers == nil {
		b.consumers = map[string][]string{}
	}
	b.consumers[queue] = groups
}

// Redrive runs mfdlq redrive --queue queue --group group and the flags
// the operator typed (--rate is required, as for the command): the plan is what
// the command says before its question, the question is Plan.Question()
// through the view's prompter, the progress its JSON progress lines.
func (b *browseBackend) Redrive(ctx context.Context, queue, group string, flags []string, io browsestep.ActionIO) (string, error) {
	return b.action(ctx, queue, append([]string{"redrive", "--queue", queue, "--group", group}, flags...), io)
}

// Export runs mfdlq export --queue queue into the incident directory.
func (b *browseBackend) Export(ctx context.Context, queue string, io browsestep.ActionIO) (string, error) {
	dir, err := b.incident(queue)
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "export-"+b.d.Now().UTC().Format("20060102T150405Z")+".jsonl.gz")
	out, last, err := b.actionOut(ctx, queue, []string{"export", "--queue", queue, "--out", file}, io)
	var sum struct {
		Exported int    `json:"exported"`
		Released int    `json:"released"`
		Location string `json:"location"`
	}
	if err == nil && json.Unmarshal(out, &sum) == nil && sum.Location != "" {
		return fmt.Sprintf("exported %d to %s; %d made visible again, nothing deleted", sum.Exported, sum.Location, sum.Released), nil
	}
	return last, err
}

// action runs a changing command with the view's prompter and status line.
func (b *browseBackend) action(ctx context.Context, queue string, args []string, io browsestep.ActionIO) (string, error) {
	_, last, err := b.actionOut(ctx, queue, args, io)
	return last, err
}

// actionOut is action that also returns the command's JSON output.
func (b *browseBackend) actionOut(ctx context.Context, queue string, args []string, io browsestep.ActionIO) ([]byte, string, error) {
	var mu sync.Mutex
	var plan []string
	var last string
	p := &viewPrompter{ask: func(q string) (bool, error) {
		mu.Lock()
		shown := append([]string{}, plan...)
		mu.Unlock()
		return io.Ask(shown, q)
	}}
	out, err := b.step(ctx, queue, stepRun{args: args, prompt: p,
		line: func(l string) {
			mu.Lock()
			plan = append(plan, l)
			mu.Unlock()
			io.Status(l)
		},
		out: func(l string) {
			if s := progressText(l); s != "" {
				mu.Lock()
				last = s
				mu.Unlock()
				io.Status(s)
			}
		}})
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		return out, last, err
	}
	if last == "" && len(plan) > 0 {
		last = plan[len(plan)-1]
	}
	return out, last, nil
}

// progressText is a JSON line of a move (progress or summary) as a status.
func progressText(l string) string {
	var p redrive.ProgressLine
	if json.Unmarshal([]byte(l), &p) != nil {
		return ""
	}
	switch p.Type {
	case "progress":
		return fmt.Sprintf("%d/%d moved · %.1f msg/s · %d failed · %d in flight", p.Moved, p.Total, p.Rate, p.Failed, p.Workers)
	case "summary":
		var s redrive.SummaryLine
		if json.Unmarshal([]byte(l), &s) == nil {
			return fmt.Sprintf("done: %d moved, %d failed, %d returned in %.1fs", s.Moved, s.Failed, s.Returned, s.DurationSeconds)
		}
	}
	return ""
}
