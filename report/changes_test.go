package report

import (
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/changes"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redact"

	"github.com/google/go-cmp/cmp"
)

// TestChangesSectionEncodesTheTrail: user names, resources and reasons come
// from CloudTrail, where anyone who may call an API writes them. They reach
// the report encoded, sanitised and redacted, never as markdown or escapes.
func TestChangesSectionEncodesTheTrail(t *testing.T) {
	t.Parallel()
	first := time.Date(2026, 11, 29, 22, 4, 0, 0, time.UTC)
	hostile := "mallory\x1b[2J\n# Owned <script>alert(1)</script> | ana@example.com"
	r := &changes.Result{
		Queue: "orders-dlq", Account: "123456789012", Region: "us-east-1",
		Range: changes.Range{From: first.Add(-30 * time.Minute), To: first.Add(30 * time.Minute), FirstFailure: &first, Source: "samples.jsonl", Margin: "30m0s"},
		Events: []changes.Event{{Time: first.Add(-time.Minute), Name: "UpdateFunctionCode", Resource: "orders-producer`|x", User: hostile,
			Relation: changes.Deploy, Reason: "a deploy in the account (lambda)", What: "orders-producer's code was updated", Offset: -60}},
		Noise: []changes.Noise{{Reason: changes.NoiseLogs, Count: 277}}, Dropped: 277,
	}
	r.Decide()
	inc := &Incident{Changes: r, red: &redact.Redactor{}}
	var b strings.Builder
	inc.writeChanges(&b, incident.Event{})
	inc.writeChangeSummary(&b)
	out := b.String()
	// In a code span (the table's user cell) <script> is shown as text; in
	// plain text it is escaped.
	for _, bad := range []string{"\x1b", "by mallory\\x1b[2J\\n# Owned <script>", "\n# Owned", "ana@example.com"} {
		if strings.Contains(out, bad) {
			t.Errorf("section holds %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{"Dropped as noise: 277 log groups and streams", "| nearest change | orders-producer's code was updated by mallory", "[redacted:", "```\nUTC", `\<script\>`} {
		if !strings.Contains(out, want) {
			t.Errorf("section lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| 2026") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 7 {
			t.Errorf("a table row with a cell too many: %q", line)
		}
	}
}

// TestChartFoldsQuietRows: a run of all-zero rows is one line, a row with
// a figure stays, and the footer says its duration and time in words.
func TestChartFoldsQuietRows(t *testing.T) {
	t.Parallel()
	lines := []string{
		"UTC           DLQ arrivals       errors",
		"06:29:38 UTC                0         0",
		"06:32:08 UTC                0         0",
		"06:34:38 UTC                0         0",
		"06:37:09 UTC  ###          3         0",
		"06:39:39 UTC                0         0",
		"5 rows of 2m30s from 2026-12-07T06:29:38Z",
	}
	inc := &Incident{now: time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC)}
	got := inc.foldQuietRows(lines)
	want := []string{lines[0], "06:29:38 – 06:34:38 UTC  all 0 (3 rows)", lines[4], lines[5], "5 rows of 2 min from 06:29:38 UTC"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("folded chart (-want +got):\n%s", diff)
	}
}
