package transform

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// SignaturePlan is the plan's line for a selection that holds SNS
// notifications. SNS signs the notification's Message: once the program
// changes it, the Signature no longer matches, and a consumer that
// verifies signatures rejects the message whatever mfdlq does. mfdlq drops
// Signature, SignatureVersion and SigningCertURL from each envelope it
// changes (an envelope that claims a signature SNS never made is a lie;
// one without is plainly unsigned), keeps every other member byte for
// byte, and says so here; the canary, which carries repaired messages,
// shows a verifying consumer's rejection before the rest moves.
const SignaturePlan = "SNS envelopes: a repaired Message no longer matches SNS's signature, so each changed envelope goes without Signature, SignatureVersion and SigningCertURL (every other field as it came); a consumer that verifies SNS signatures will reject them, and the canary shows it before the rest moves"

// NeedsSignaturePlan tells whether m's envelope is an SNS notification
// whose signature a change would break.
func NeedsSignaturePlan(m *sqsjson.Message) bool {
	e := envelope.Detect(m)
	return e.Kind == envelope.KindSNS || e.Wraps == envelope.KindSNS
}

// UndoCommand is the command the plan and the report print to put the
// originals back into the DLQ they came from, at the move's rate (0: max).
// It names --to: without it a replay sends each record to its recorded
// source queue, the consumer that failed on them.
func UndoCommand(originals, dlq string, rate float64) string {
	cmd := "mfdlq redrive --from-file " + shellQuote(originals) + " --to " + shellQuote(dlq)
	if rate > 0 {
		return cmd + " --rate " + strconv.FormatFloat(rate, 'f', -1, 64)
	}
	return cmd + " --rate max" // a DLQ has no consumer to spare
}

// KeepUndo is the plan's undo line for --keep --transform: nothing left
// the DLQ, so there is nothing to put back, and a replay of the originals
// would put each message there twice (an undo run anyway puts back only
// what the journal says was deleted: none).
const KeepUndo = "none: --keep leaves every original in the DLQ (the repaired copies go beside them), so there is nothing to put back"

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters of ordinary paths and queue names.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+@%,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PlanLines are the transform's lines of a redrive plan: the program, the
// counts of the preview, the signature decision when the selection holds
// SNS envelopes, and the undo.
func PlanLines(f Figures, sns bool, undo string) []string {
	lines := []string{
		"transform: " + programLine(f.Program, f.Origin),
		fmt.Sprintf("  previewed on the first %s selected: %d changed, %d unchanged, %d failed (a failed one stays in the DLQ)",
			plural.Of(f.Changed+f.Unchanged+f.Failed, "message"), f.Changed, f.Unchanged, f.Failed),
		"  originals: each written to the incident and fsynced before its repaired copy is sent",
	}
	if sns {
		lines = append(lines, "  "+SignaturePlan)
	}
	return append(lines, "  undo: "+undo)
}
