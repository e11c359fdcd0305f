package cmdutil

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/untrusted"
)

// ExitErrorLine is an error under --output json: one line on stderr, so a
// script reads the exit status and the reason without parsing prose
// (restic's exit_error message is the model). Hint is the next action
// when the fix is always the same.
type ExitErrorLine struct {
	Type    string `json:"type"` // always "error"
	Code    int    `json:"code"` // the exit status
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	// Reason tells an exit 3 apart: "failed" (a check ran and did not
	// pass) or "refused" (not safe, or not confirmed; nothing changed).
	Reason string `json:"reason,omitempty"`
}

// ReportError tells err once on stderr: `mfdlq: <error>` and its hint on
// a line of its own, or under --output json one ExitErrorLine with the hint
// in its field. The message quotes names, files and AWS answers, so it is
// sanitised (untrusted.Terminal) either way.
func ReportError(d *Deps, args []string, err error, code int, hint string) {
	msg := err.Error()
	if msg == "" {
		return // the command already printed its verdict
	}
	msg, hint = untrusted.Terminal(msg), untrusted.Terminal(hint)
	if d.JSONOutput() || askedJSON(args) {
		line, _ := json.Marshal(ExitErrorLine{Type: "error", Code: code, Message: msg, Hint: hint, Reason: exitReason(err)})
		fmt.Fprintf(d.IO.ErrOut, "%s\n", untrusted.JSON(line))
		return
	}
	fmt.Fprintf(d.IO.ErrOut, "mfdlq: %s\n", msg)
	if hint != "" {
		fmt.Fprintf(d.IO.ErrOut, "mfdlq: %s\n", hint)
	}
}

// askedJSON tells whether args ask for --output json (the last --output
// wins, as in cobra), for an error cobra met before it parsed the flags
// into GlobalOptions (an unknown flag before --output).
func askedJSON(args []string) bool {
	asked := false
	for i, a := range args {
		v, ok := "", true
		switch {
		case a == "--":
			return asked
		case strings.HasPrefix(a, "--output="):
			v = strings.TrimPrefix(a, "--output=")
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			v = strings.TrimPrefix(strings.TrimPrefix(a, "-o"), "=")
		case (a == "--output" || a == "-o") && i+1 < len(args):
			v = args[i+1]
		default:
			ok = false
		}
		if ok {
			asked = v == "json"
		}
	}
	return asked
}
