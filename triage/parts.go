package triage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mfdlq/mfdlq/changes"
	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/trailapi"
)

// contain is step 1: the source, its mappings, the DLQ's trend and the
// source's age, judged by contain and written as contain's artifact and
// event. Nothing is changed: no mapping action is ever asked.
func (t *run) contain(ctx context.Context) error {
	t.findSource(ctx)
	rep := contain.Result{Mappings: t.mappings, OtherSources: []string{}}
	if rep.Mappings == nil {
		rep.Mappings = []lambdaapi.Mapping{}
	}
	r := contain.Reader{SQS: t.d.SQS, Now: t.d.Now, SampleEvery: t.req.Sample / 2, Samples: 3, Warn: t.warn}
	if t.d.CloudWatch != nil {
		r.CW = t.d.CloudWatch
	}
	if err := r.Measure(ctx, t.q, t.src, t.req.Window, &rep); err != nil {
		return err
	}
	if err := t.ws.WriteJSON(incident.ContainFile, &rep); err != nil {
		return err
	}
	ev := t.event(incident.StepContain)
	in := contain.Inputs{Window: t.req.Window.String()}
	if err := ev.Set(in, rep.Figures()); err != nil {
		return err
	}
	ev.Verdict, ev.Artifact = string(rep.Verdict), incident.ContainFile
	if err := t.ws.Append(ev); err != nil {
		return err
	}
	res := t.res
	res.Alive, res.Reasons = rep.Alive, rep.Reasons
	res.Messages = t.q.Depth.Total()
	if t.src != nil {
		res.Source = t.src.Name
	}
	for _, m := range t.mappings {
		if !slices.Contains(res.Consumers, m.Function) {
			res.Consumers = append(res.Consumers, m.Function)
		}
	}
	return nil
}

// findSource finds the source queue (the deepest of several, as contain
// does) and the mappings that read it; what it cannot read is skipped.
func (t *run) findSource(ctx context.Context) {
	srcs, err := sqsapi.SourceQueues(ctx, t.d.SQS, t.q)
	if err != nil {
		t.skip(incident.StepContain, fmt.Sprintf("the source queue is unknown: %v", err))
		return
	}
	for _, s := range srcs {
		if t.src == nil || s.Depth.Visible > t.src.Depth.Visible {
			t.src = s
		}
	}
	t.res.Sources = len(srcs)
	if t.src == nil || t.d.Lambda == nil {
		return
	}
	ms, err := lambdaapi.Mappings(ctx, t.d.Lambda, t.src.Name, t.src.ARN, int64(t.src.Visibility/time.Second))
	if err != nil {
		t.skip(incident.StepContain, fmt.Sprintf("the Lambda mappings of %s are unknown: %v", t.src.Name, err))
		return
	}
	t.mappings = ms
}

// look is steps 2 and 3: the sample (the incident's, else a harmless
// peek saved as samples.jsonl), a first classification, the logs of one
// message per group, and the classification again with the logs'
// signatures.
func (t *run) look(ctx context.Context) error {
	msgs, err := t.samples(ctx)
	if err != nil {
		return err
	}
	t.sample = msgs
	t.res.Sampled = len(msgs)
	if msgs == nil {
		return nil
	}
	opts := classify.Options{Queue: t.q.Name, BySource: t.res.Sources > 1}
	first, err := classifyAll(msgs, opts)
	if err != nil {
		return err
	}
	if sigs, err := t.searchLogs(ctx, first); err != nil {
		return err
	} else if len(sigs) > 0 {
		opts.Signatures = sigs
		if first, err = classifyAll(msgs, opts); err != nil {
			return err
		}
	}
	t.classed = first
	t.summarise(first)
	return t.recordClassification(first)
}

// samples is the incident's sample when it has one (a laptop's inspect, an
// earlier triage), else a peek saved as samples.jsonl: every message hidden
// for 5 seconds, never deleted. A DLQ with its own redrive policy is not
// peeked at unless Force; nil messages then, and the part is skipped, as
// when the peek fails (a role without sqs:ReceiveMessage).
func (t *run) samples(ctx context.Context) ([]sqsjson.Message, error) {
	if t.ws.Has(incident.SamplesFile) {
		f, err := t.ws.Open(incident.SamplesFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		msgs, err := sqsjson.ReadAll(f)
		if err != nil {
			return nil, fmt.Errorf("the incident's sample %s: %w", t.ws.Path(incident.SamplesFile), err)
		}
		t.res.SampleFrom = incident.SamplesFile
		return orEmpty(msgs), nil
	}
	if why := t.q.Chained(); why != "" && !t.req.Force {
		t.skip(incident.StepInspect, why+": every peek counts as a receive and can push messages onward; pass --force to peek anyway")
		return nil, nil
	}
	if t.q.Depth.Visible == 0 {
		t.skip(incident.StepInspect, "no visible message to peek at")
		return nil, nil
	}
	t.warn("peeking at %s: each message hidden for 5 s, never deleted; each receive adds 1 to ApproximateReceiveCount", t.q.Name)
	res, err := sqsapi.Peek(ctx, t.d.SQS, t.q, sqsapi.PeekOptions{Max: t.req.Peek, Visibility: 5, Wait: 2})
	if err != nil {
		if ended(ctx, err) {
			return nil, err
		}
		// Denied or failing receives still leave contain's answer.
		t.skip(incident.StepInspect, fmt.Sprintf("peek: %v", err))
		return nil, nil
	}
	if err := t.ws.WriteWith(incident.SamplesFile, sqsjson.WriteLines(res.Messages)); err != nil {
		return nil, err
	}
	t.res.SampleFrom = incident.LiveSample
	return orEmpty(res.Messages), nil
}

func orEmpty(msgs []sqsjson.Message) []sqsjson.Message {
	if msgs == nil {
		return []sqsjson.Message{}
	}
	return msgs
}

func classifyAll(msgs []sqsjson.Message, opts classify.Options) (*classify.Classification, error) {
	c := classify.New(opts)
	for i := range msgs {
		if err := c.Add(&msgs[i]); err != nil {
			return nil, fmt.Errorf("classify: %w", err)
		}
	}
	return c.Result(), nil
}

// recordClassification writes classification.json and the classify event,
// as mfdlq classify does.
func (t *run) recordClassification(c *classify.Classification) error {
	if err := t.ws.WriteJSON(incident.ClassificationFile, c); err != nil {
		return err
	}
	ev := t.event(incident.StepClassify)
	th := classify.DefaultThresholds()
	in := classify.Inputs{Source: t.res.SampleFrom, BurstWindow: th.BurstWindow.String(), BurstShare: th.BurstShare, TrickleSpan: th.TrickleSpan.String()}
	if err := ev.Set(in, c.Figures()); err != nil {
		return err
	}
	ev.Verdict, ev.Artifact = string(c.Verdict), incident.ClassificationFile
	return t.ws.Append(ev)
}

// logGroups are the groups to search: the request's, else each mapping's
// function's (/aws/lambda/NAME).
func (t *run) logGroups() []string {
	if len(t.req.LogGroups) > 0 {
		return t.req.LogGroups
	}
	var out []string
	for _, m := range t.mappings {
		if g := "/aws/lambda/" + m.Function; m.Function != "" && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// searchLogs looks for one message per group in the consumer's logs and
// records logs.json; it returns the signatures found, by MessageId.
func (t *run) searchLogs(ctx context.Context, c *classify.Classification) (classify.Signatures, error) {
	groups := t.logGroups()
	switch {
	case t.d.Logs == nil:
		t.skip(incident.StepLogs, "no CloudWatch Logs client")
		return nil, nil
	case len(groups) == 0:
		t.skip(incident.StepLogs, "no log group: pass --log-group (no Lambda mapping reads the source)")
		return nil, nil
	}
	var ids [][]string
	for _, g := range c.Groups {
		ids = append(ids, g.ExampleIDs)
	}
	targets, _ := logsearch.Targets(t.sample, nil, ids, logIDs, logMargin, 24*time.Hour, t.d.Now().UTC())
	if len(targets) == 0 {
		t.skip(incident.StepLogs, "no sampled message to look for")
		return nil, nil
	}
	rep, err := logsearch.Search(ctx, t.d.Logs, targets, logsearch.Options{Groups: groups, Context: 20, Method: logsearch.MethodFilter})
	if err != nil {
		if ended(ctx, err) {
			return nil, err
		}
		var nf *logsearch.GroupNotFoundError
		if errors.As(err, &nf) {
			t.skip(incident.StepLogs, fmt.Sprintf("log group %s does not exist: pass --log-group", nf.Group))
		} else {
			t.skip(incident.StepLogs, err.Error())
		}
		return nil, nil
	}
	if err := t.ws.WriteJSON(incident.LogsFile, &rep); err != nil {
		return nil, err
	}
	ev := t.event(incident.StepLogs)
	in := logsearch.Inputs{LogGroups: groups, Method: string(rep.Method), Margin: logMargin.String(), MessageIDs: []string{}}
	if err := ev.Set(in, logsearch.Figures{Searched: rep.Searched, Found: rep.Found}); err != nil {
		return nil, err
	}
	ev.Artifact = incident.LogsFile
	if err := t.ws.Append(ev); err != nil {
		return nil, err
	}
	t.res.LogGroups = groups
	t.res.Logs = &LogsFound{Searched: rep.Searched, Found: rep.Found}
	for _, m := range rep.Messages {
		if m.Found && m.Exception != "" {
			t.res.Logs.Exception = m.Exception
			break
		}
	}
	return rep.Signatures(), nil
}

// changes reads what changed around the first failure, bounded to
// maxTrailEvents, and records changes.json: skipped without CloudTrail or
// CloudWatch, without a sample to date the failures, or when asked.
func (t *run) changes(ctx context.Context) error {
	switch {
	case t.req.NoChanges:
		t.skip(incident.StepChanges, "not asked (--no-changes)")
		return nil
	case t.d.Trail == nil || t.d.CloudWatch == nil:
		t.skip(incident.StepChanges, "no CloudTrail or CloudWatch client")
		return nil
	case len(t.sample) == 0:
		t.skip(incident.StepChanges, "no sampled message to date the failures")
		return nil
	}
	var sent []time.Time
	for i := range t.sample {
		if at, _, ok := changes.FailureTime(&t.sample[i]); ok {
			sent = append(sent, at)
		}
	}
	w, err := changes.NewRange(changes.Span{Sent: sent, Source: t.res.SampleFrom, Margin: changesMargin, Now: t.d.Now().UTC()})
	if err != nil {
		t.skip(incident.StepChanges, err.Error())
		return nil
	}
	pacer := t.d.Pacer
	if pacer == nil {
		pacer = trailapi.PacerFor(t.q.Account, t.q.Region)
	}
	c := changes.Clients{SQS: t.d.SQS, Lambda: t.d.Lambda, Trail: t.d.Trail, Pacer: pacer, Retry: trailapi.DefaultRetry,
		History: t.d.CloudWatch, Metrics: t.d.CloudWatch}
	res, err := changes.Run(ctx, c, changes.Request{Queue: t.q, Range: w, Sent: sent, Now: t.d.Now().UTC(), MaxEvents: maxTrailEvents})
	if err != nil {
		if ended(ctx, err) {
			return err
		}
		t.skip(incident.StepChanges, err.Error())
		return nil
	}
	if err := t.ws.WriteJSON(incident.ChangesFile, res); err != nil {
		return err
	}
	ev := t.event(incident.StepChanges)
	in := changes.Inputs{Margin: changesMargin.String(), Functions: []string{}}
	if err := ev.Set(in, res.Figures()); err != nil {
		return err
	}
	ev.Verdict, ev.Artifact = string(res.Verdict), incident.ChangesFile
	if err := t.ws.Append(ev); err != nil {
		return err
	}
	t.res.Changes = &ChangesFound{Verdict: res.Verdict, Nearest: res.Evidence}
	for _, u := range res.Unread {
		t.res.Changes.Unread = append(t.res.Changes.Unread, u.Source)
	}
	return nil
}
