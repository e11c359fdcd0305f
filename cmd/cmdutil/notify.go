package cmdutil

import (
	"context"
	"net/http"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/notify"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// NotifyFlag is --notify TARGET of the steps that tell the team when they
// end (verify, record; redrive after the restructure), with MFDLQ_NOTIFY
// as its default, so a team sets it once in the on-call shell.
type NotifyFlag struct {
	Raw    string         // --notify
	Target *notify.Target // parsed from Raw or MFDLQ_NOTIFY; nil: nobody is told
}

// Bind adds --notify to fs.
func (n *NotifyFlag) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&n.Raw, "notify", "", "tell the team when the step ends: an SNS topic ARN or an https:// webhook taking Slack's {\"text\"} (default $MFDLQ_NOTIFY)")
}

// Validate parses the flag, or MFDLQ_NOTIFY: a bad target is a usage
// error before any AWS call, never a surprise at the step's end.
func (n *NotifyFlag) Validate() error {
	n.Target = nil
	raw := n.Raw
	if raw == "" {
		raw = os.Getenv("MFDLQ_NOTIFY")
	}
	if raw == "" {
		return nil
	}
	t, err := notify.Parse(raw)
	if err != nil {
		if n.Raw == "" {
			return UsageErrorf("MFDLQ_NOTIFY: %v", err)
		}
		return UsageErrorf("%v", err)
	}
	n.Target = &t
	return nil
}

// PlanNotify says, before the step runs, that --notify's topic is in an
// account other than the queue's (one line, only then): who is told is
// part of what the operator agrees to.
func (d *Deps) PlanNotify(n *NotifyFlag, account string) {
	if n == nil || n.Target == nil {
		return
	}
	if l := n.Target.OtherAccount(account); l != "" {
		d.Infof("plan: %s", l)
	}
}

// NotifySender is the production sender: SNS in the topic's region with
// the credentials in use, webhooks through a plain HTTP client.
func (d *Deps) NotifySender() notify.Sender {
	return notify.Sender{
		SNS: func(ctx context.Context, region string) (notify.SNSAPI, error) {
			cfg, err := d.AWS(ctx)
			if err != nil {
				return nil, err
			}
			return sns.NewFromConfig(cfg, func(o *sns.Options) { o.Region = region }), nil
		},
		HTTP: &http.Client{Timeout: notify.Timeout},
	}
}

// NotifyQueueStep tells the team that step ended on q (its verdict, what
// moved, where the incident is) and records it in q's incident: the one
// line a step's run function calls at its end. redrive's, once the
// restructure lands: d.NotifyQueueStep(ctx, &o.notify, "redrive", dlq,
// string(outcome), plural.Of(moved, "message")+" moved to "+dest, "").
func (d *Deps) NotifyQueueStep(ctx context.Context, n *NotifyFlag, step string, q *sqsapi.Queue, verdict, moved, report string) {
	if n == nil || n.Target == nil {
		return
	}
	ws, err := d.Workspace(q.Name)
	if err != nil {
		ws = nil
	}
	if report == "" {
		report, _ = d.IncidentDir(q.Name)
	}
	d.NotifyEnd(ctx, n, ws, d.Event(step, q), notify.Message{Step: step, Queue: q.Name, Account: q.Account, Region: q.Region,
		Verdict: verdict, Moved: moved, Report: report})
}

// NotifyEnd tells the team that a step ended, once, when --notify or
// MFDLQ_NOTIFY names a target, and records in ws that it did (or why it
// did not). A failure is a warning: the step's own exit status stands.
// queueEv is the step's event, for the queue, account and region.
func (d *Deps) NotifyEnd(ctx context.Context, n *NotifyFlag, ws *incident.Workspace, queueEv incident.Event, m notify.Message) {
	if n == nil || n.Target == nil {
		return
	}
	err := d.NotifySender().Send(ctx, *n.Target, m)
	fig := notify.Figures{Step: m.Step, Target: n.Target.String(), Kind: n.Target.Kind, Sent: err == nil, Text: m.Text()}
	if err != nil {
		fig.Error = err.Error()
		d.Warnf("the team was not told that %s ended (%s): %v", m.Step, n.Target, err)
	} else {
		d.Infof("told %s that %s ended", n.Target, m.Step)
	}
	if ws == nil {
		return
	}
	ev := d.Event("notify", nil)
	ev.Queue, ev.QueueURL, ev.Account, ev.Region = queueEv.Queue, queueEv.QueueURL, queueEv.Account, queueEv.Region
	ev.Verdict = map[bool]string{true: "sent", false: "failed"}[fig.Sent]
	if err := ev.SetFigures(fig); err != nil {
		d.Warnf("the notification was not recorded: %v", err)
		return
	}
	if err := ws.Append(ev); err != nil {
		d.Warnf("the notification was not recorded: %v", err)
	}
}
