package cmd

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/notify"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// --notify moved to cmdutil (NotifyFlag) with redrive; these are its old
// names for verify, record and the Lambda handler while they are in cmd.

// notifyFlag is cmdutil.NotifyFlag under its old names.
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
func (d *Deps) notifyEnd(ctx context.Context, n *notifyFlag, ws *incident.Workspace, queueEv incident.Event, m notify.Message) {
	d.NotifyEnd(ctx, &n.NotifyFlag, ws, queueEv, m)
}
