package alarmtriage

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/incidents3"
	"github.com/mfdlq/mfdlq/notify"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Result is what a triage found, as the function's response and the
// notification say it: the fields of `mfdlq triage --output json` that
// need no message data.
type Result struct {
	Verdict  string `json:"verdict"`
	Alive    string `json:"alive"`
	Messages int64  `json:"messages"`
}

// Triage runs triage on queue (its ARN) into the incident directory dir
// and returns what it found; its error is one line. cmd supplies it.
type Triage func(ctx context.Context, queue, dir string) (Result, error)

// Notifier tells the team; Target names where (redacted), for the
// incident's notify event.
type Notifier struct {
	Target notify.Target
	Send   func(ctx context.Context, m notify.Message) error
}

// StepAlarm is the event the function appends for each alarm episode it
// handles, before triage's own.
const StepAlarm = "alarm"

// Cooldown is how long after a triage of a DLQ another episode of an
// alarm on it joins the incident without a triage of its own: an alarm
// that flaps every few minutes tells the channel once.
const Cooldown = 30 * time.Minute

// Handler handles alarm events.
type Handler struct {
	S3     incidents3.API
	Prefix incidents3.Prefix
	Triage Triage
	// Notify is nil when MFDLQ_NOTIFY names no target.
	Notify *Notifier
	// TagKey and TagValue, when TagKey is set, keep only alarms tagged so
	// (MFDLQ_ALARM_TAG=key=value); Tags reads an alarm's tags when the
	// event does not carry them (no tag propagation).
	TagKey, TagValue string
	Tags             func(ctx context.Context, alarmARN string) (map[string]string, error)
	// WorkDir is where working copies go (the function's /tmp).
	WorkDir string
	Now     func() time.Time
}

// Response is the invocation's answer.
type Response struct {
	Outcome  string `json:"outcome"` // triaged, joined, duplicate, skipped
	Why      string `json:"why,omitempty"`
	Queue    string `json:"queue,omitempty"`
	Alarm    string `json:"alarm,omitempty"`
	Incident string `json:"incident,omitempty"`
	Verdict  string `json:"verdict,omitempty"`
	Alive    string `json:"alive,omitempty"`
	Messages *int64 `json:"messages,omitempty"`
	Notified bool   `json:"notified"`
}

// Outcomes of an invocation that ended well.
const (
	OutcomeTriaged   = "triaged"
	OutcomeJoined    = "joined"
	OutcomeDuplicate = "duplicate"
	OutcomeSkipped   = "skipped"
)

// AlarmFigures are the alarm event's figures in the incident.
type AlarmFigures struct {
	AlarmARN  string `json:"alarm_arn"`
	AlarmName string `json:"alarm_name"`
	Previous  string `json:"previous_state"`
	StateTime string `json:"state_timestamp"`
	Reason    string `json:"reason,omitempty"`
	// Triaged is false for an episode that joined a triage of less than
	// Cooldown ago.
	Triaged bool `json:"triaged"`
}

// Invoke is the Lambda entry: raw event in, JSON response out. A panic
// below is an error of one line, never a crashed runtime.
func (h *Handler) Invoke(ctx context.Context, raw []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("mfdlq: internal error handling the event: %v", r)
		}
	}()
	res, err := h.Handle(ctx, raw)
	if err != nil {
		return nil, errors.New(oneLine(err))
	}
	return json.Marshal(res)
}

// oneLine is an error as the invocation's error message: one line,
// sanitised, bounded.
func oneLine(err error) string {
	return untrusted.Shorten(untrusted.Cell("mfdlq: "+err.Error()), 1000)
}

// Handle handles one event.
func (h *Handler) Handle(ctx context.Context, raw []byte) (Response, error) {
	a, err := ParseAlarm(raw)
	if err != nil {
		return Response{}, err
	}
	res := Response{Alarm: a.ARN, Queue: a.Queue}
	if !a.Into() {
		res.Outcome, res.Why = OutcomeSkipped, fmt.Sprintf("%s → %s is not a move into ALARM", a.Previous, a.State)
		return res, nil
	}
	if ok, why, err := h.tagged(ctx, a); err != nil || !ok {
		res.Outcome, res.Why = OutcomeSkipped, why
		return res, err
	}
	claimed, err := incidents3.Episode{AlarmARN: a.ARN, StateTime: a.StateTime, Queue: a.Queue}.Claim(ctx, h.S3, h.Prefix)
	if err != nil {
		return res, err
	}
	if !claimed {
		res.Outcome, res.Why = OutcomeDuplicate, "this move into ALARM ("+a.StateTime+") was handled already"
		return res, nil
	}
	loc, _, err := incidents3.OpenOf(ctx, h.S3, h.Prefix, a.Account, a.Region, a.Queue, h.Now())
	if err != nil {
		return res, err
	}
	res.Incident = loc.String()
	// Each invocation has a working copy of its own: two on one incident
	// (two alarms at once) never share, nor remove, each other's.
	base := filepath.Join(h.WorkDir, "incidents", loc.Bucket)
	if err := os.MkdirAll(base, 0o700); err != nil {
		return res, err
	}
	run, err := os.MkdirTemp(base, "run-")
	if err != nil {
		return res, err
	}
	// A warm function keeps /tmp between invocations: the working copy
	// goes once pushed, so many DLQs' incidents never fill it.
	defer os.RemoveAll(run)
	cp, _, err := incidents3.Open(ctx, h.S3, loc, filepath.Join(run, loc.ID))
	if err != nil {
		return res, err
	}
	return h.triage(ctx, a, cp, res)
}

// triage runs triage into the working copy unless the incident had one
// less than Cooldown ago, and pushes the incident back whatever happens:
// the alarm event is never lost.
func (h *Handler) triage(ctx context.Context, a Alarm, cp *incidents3.Copy, res Response) (Response, error) {
	recent, err := h.recentTriage(cp.WS)
	if err != nil {
		return res, err
	}
	if recent.IsZero() {
		// Two alarms of the DLQ at once, or a flap while a triage runs:
		// the incident's events show no triage yet, the claim does.
		ok, since, err := incidents3.ClaimTriage(ctx, h.S3, cp.Loc, h.Now(), Cooldown)
		if err != nil {
			return res, err
		}
		if !ok {
			recent = cmp.Or(since, h.Now())
		}
	}
	fig := AlarmFigures{AlarmARN: a.ARN, AlarmName: untrusted.Cell(a.Name), Previous: a.Previous, StateTime: a.StateTime, Reason: a.Reason, Triaged: recent.IsZero()}
	if err := h.appendEvent(cp.WS, a, StepAlarm, "ALARM", fig); err != nil {
		return res, err
	}
	if !recent.IsZero() {
		res.Outcome, res.Why = OutcomeJoined, "the incident's triage of "+recent.UTC().Format(time.RFC3339)+" is less than "+Cooldown.String()+" old"
		_, err := cp.Push(ctx)
		return res, err
	}
	partition := strings.SplitN(a.ARN, ":", 3)[1] // aws, aws-cn, aws-us-gov: the alarm's
	queueARN := "arn:" + partition + ":sqs:" + a.Region + ":" + a.Account + ":" + a.Queue
	tr, terr := h.Triage(ctx, queueARN, cp.WS.Dir)
	if _, err := cp.Push(ctx); err != nil {
		return res, errors.Join(terr, err)
	}
	if terr != nil {
		return res, errors.Join(fmt.Errorf("triage %s: %w", a.Queue, terr), incidents3.ReleaseTriage(ctx, h.S3, cp.Loc))
	}
	res.Outcome, res.Verdict, res.Alive, res.Messages = OutcomeTriaged, tr.Verdict, tr.Alive, &tr.Messages
	res.Notified = h.tell(ctx, a, cp, tr, res.Incident)
	_, err = cp.Push(ctx)
	return res, err
}

// stepTriage is triage's event name (triage.Step, a package of this
// layer, so named again here).
const stepTriage = "triage"

// recentTriage is the time of the incident's latest triage if it is less
// than Cooldown old (zero otherwise).
func (h *Handler) recentTriage(ws *incident.Workspace) (time.Time, error) {
	ev, ok, err := ws.Latest(stepTriage)
	if err != nil || !ok || h.Now().Sub(ev.Time) >= Cooldown {
		return time.Time{}, err
	}
	return ev.Time, nil
}

func (h *Handler) appendEvent(ws *incident.Workspace, a Alarm, step, verdict string, figures any) error {
	ev := incident.Event{Step: step, Time: h.Now().UTC(), Queue: a.Queue, Account: a.Account, Region: a.Region,
		Command: []string{"mfdlq", "(lambda)", step}, Verdict: verdict}
	if err := ev.SetFigures(figures); err != nil {
		return err
	}
	return ws.Append(ev)
}

// tell sends the one notification of the episode (names and figures,
// never a message body) and records it in the incident.
func (h *Handler) tell(ctx context.Context, a Alarm, cp *incidents3.Copy, tr Result, where string) bool {
	if h.Notify == nil {
		return false
	}
	verdict := fmt.Sprintf("%s · alive: %s · %d messages", cmp.Or(tr.Verdict, "-"), cmp.Or(tr.Alive, "-"), tr.Messages)
	m := notify.Message{Step: "triage", Queue: a.Queue, Account: a.Account, Region: a.Region, Verdict: verdict, Report: where}
	err := h.Notify.Send(ctx, m)
	fig := notify.Figures{Step: "triage", Target: h.Notify.Target.String(), Kind: h.Notify.Target.Kind, Sent: err == nil, Text: m.Text()}
	if err != nil {
		fig.Error = err.Error()
	}
	_ = h.appendEvent(cp.WS, a, "notify", map[bool]string{true: "sent", false: "failed"}[err == nil], fig)
	return err == nil
}

// tagged applies the tag filter: the event's propagated tags, else the
// alarm's own (cloudwatch:ListTagsForResource).
func (h *Handler) tagged(ctx context.Context, a Alarm) (bool, string, error) {
	if h.TagKey == "" {
		return true, "", nil
	}
	tags := a.Tags
	if tags == nil && h.Tags != nil {
		var err error
		if tags, err = h.Tags(ctx, a.ARN); err != nil {
			return false, "", fmt.Errorf("read the tags of alarm %s (MFDLQ_ALARM_TAG): %w", a.Name, err)
		}
	}
	if v, ok := tags[h.TagKey]; ok && (h.TagValue == "" || v == h.TagValue) {
		return true, "", nil
	}
	return false, fmt.Sprintf("alarm %s lacks the tag %s=%s (MFDLQ_ALARM_TAG)", untrusted.Cell(a.Name), h.TagKey, h.TagValue), nil
}
