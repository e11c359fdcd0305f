package mcpserver

import (
	"fmt"
	"slices"
	"strings"
)

// readOnly is the allow-list: each command a tool may run and the flags it
// may pass. A flag not listed is refused: the changing ones (--yes,
// --pause-mapping, --cap-concurrency, --resume-mapping, --delete, --out,
// --fixed, --take-over, --when-ok, --notify, --transform…) are in no list,
// nor --force: a forced peek of a DLQ with its own redrive policy moves
// messages on to the next DLQ once they reach its maxReceiveCount.
var readOnly = map[string][]string{
	"ls":       {"prefix", "non-empty", "notes"},
	"contain":  {"queue", "window", "sample"},
	"inspect":  {"queue", "max", "payload"},
	"classify": {"queue", "sample", "expect", "key", "payload"},
	"changes":  {"queue", "since", "until", "margin", "function"},
	"logs":     {"queue", "log-group", "ids", "message-id", "margin"},
	"triage":   {"queue", "window", "sample", "peek", "log-group", "no-changes"},
	"verify":   {"queue", "wait", "settle", "no-peek"},
	"redrive":  {"queue", "to", "rate", "group", "filter", "max", "sent-after", "sent-before", "dry-run"},
}

// forced are the flags the runner adds to every run: JSON out, and the
// AWS profile, region, endpoint and incident mfdlq mcp itself was given.
var forced = []string{"output", "region", "profile", "endpoint-url", "incident"}

// Guard refuses an argv that is not a read-only run: an unknown command,
// an argument that is not --flag=VALUE or --flag, a flag outside the
// command's list, or a redrive without --dry-run=true.
func Guard(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("mcp: no command")
	}
	allowed, ok := readOnly[args[0]]
	if !ok {
		return fmt.Errorf("mcp: %q is not a read-only command", args[0])
	}
	dry := false
	for _, a := range args[1:] {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || name == "" {
			return fmt.Errorf("mcp: %s: argument %q is not --flag=VALUE", args[0], a)
		}
		if !slices.Contains(allowed, name) && !slices.Contains(forced, name) {
			return fmt.Errorf("mcp: %s: --%s is not allowed here", args[0], name)
		}
		if name == "dry-run" {
			dry = value == "true"
		}
		if name == "output" && value != "json" {
			return fmt.Errorf("mcp: %s: --output must be json", args[0])
		}
	}
	if args[0] == "redrive" && !dry {
		return fmt.Errorf("mcp: redrive runs only as a dry run (--dry-run=true)")
	}
	return nil
}
