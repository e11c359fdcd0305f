package cmd

import (
	"github.com/mfdlq/mfdlq/notify"
)

// The names of the helpers that moved to cmdutil with the commands that
// left package cmd (classify, logs, verify, record, triage, mcp, browse,
// redrive) while code still in cmd uses them too; as cmdutil_names.go,
// this file shrinks as commands leave.

func (d *Deps) notifySender() notify.Sender { return d.NotifySender() }
