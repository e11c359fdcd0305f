package report

import (
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redact"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/transform"
)

// TestTransformSection: the program, the counts, the examples and the undo
// reach the report fenced and redacted, with no raw escape.
func TestTransformSection(t *testing.T) {
	t.Parallel()
	f := transform.Figures{Program: ".version = 1 |\n.note = \"call +34 612 345 678\"", Origin: "--transform-file fix.jq", Changed: 338, Unchanged: 1, Failed: 1, Unsigned: 2,
		Examples:     []transform.Example{{Position: 1, MessageID: "m-1", Diff: []string{"-   \"version\": 2", "+   \"version\": 1", "  \"email\": \"ana@example.com\" \x1b[2J"}}},
		FailureTexts: []string{"message 7 (MessageId m-7): program error: ```\n# closed"}}
	inc := &Incident{red: &redact.Redactor{}}
	var b strings.Builder
	inc.writeTransform(&b, f, transform.UndoCommand("incidents/x/transform-originals.jsonl", "orders-dlq", 10))
	got := b.String()
	for _, want := range []string{"Repaired on the way with `--transform-file fix.jq` (338 changed, 1 unchanged, 1 failed and left in the DLQ; 2 SNS envelopes sent without their signature fields)",
		"-   \"version\": 2", "+   \"version\": 1", "`mfdlq redrive --from-file incidents/x/transform-originals.jsonl --to orders-dlq --rate 10`"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	for _, bad := range []string{"ana@example.com", "612 345 678", "\x1b", "\n# closed"} {
		if strings.Contains(got, bad) {
			t.Errorf("the section holds %q:\n%s", bad, got)
		}
	}
}

// TestHeldBackSaid: a redrive that held FIFO messages back says so in the
// report's redrive section.
func TestHeldBackSaid(t *testing.T) {
	t.Parallel()
	ev := incident.Event{Step: "redrive", Queue: "orders-dlq.fifo", Verdict: string(redrive.OutcomeTransformErrors)}
	if err := ev.SetFigures(redrive.Figures{Moved: 7, TransformErrors: 1, HeldBack: 3}); err != nil {
		t.Fatal(err)
	}
	inc := &Incident{red: &redact.Redactor{}}
	var b strings.Builder
	inc.writeRedrive(&b, ev)
	if want := "3 messages held back in the DLQ: an earlier message of their FIFO group failed and stayed there"; !strings.Contains(b.String(), want) {
		t.Errorf("missing %q in\n%s", want, b.String())
	}
}
