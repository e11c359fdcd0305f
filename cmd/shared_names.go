package cmd

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/notify"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// The names of the helpers that moved to cmdutil with the commands that
// left package cmd (classify, logs, verify, record, triage, mcp, browse)
// while commands still in cmd use them too; as cmdutil_names.go, this file
// shrinks as commands leave.

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
