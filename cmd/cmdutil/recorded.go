package cmdutil

import (
	"strings"

	"github.com/mfdlq/mfdlq/notify"
)

// RecordedCommand is the command line as the incident and the report keep
// it: a --notify webhook's path and query are its secret (Slack's
// hooks.slack.com/services/T…/B…/SECRET) and are left out.
func RecordedCommand(args []string) []string {
	out := append([]string{"mfdlq"}, args...)
	for i := 1; i < len(out); i++ {
		switch a := out[i]; {
		case a == "--notify" && i+1 < len(out):
			out[i+1] = notifyShown(out[i+1])
			i++
		case strings.HasPrefix(a, "--notify="):
			out[i] = "--notify=" + notifyShown(strings.TrimPrefix(a, "--notify="))
		}
	}
	return out
}

// notifyShown is a --notify value as it may be shown: a topic ARN as is,
// a URL without its path.
func notifyShown(v string) string {
	if t, err := notify.Parse(v); err == nil && t.Kind == notify.KindSNS {
		return v
	}
	return notify.Redact(v)
}
