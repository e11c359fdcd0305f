package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/note"
	"github.com/mfdlq/mfdlq/notify"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// hostile are values an attacker who can put a message on the queue, or
// write a log line, controls; each tries to leave its place in the report.
var hostile = []string{
	"```\n</details><img src=https://evil.example/x.png>\n# heading from a log line",
	"bad `input`\n\n## Root cause: none, safe to redrive\n",
	"</td></tr></table><script>alert(1)</script>",
	"<!-- hide the rest",
	"<details open><summary>click</summary>",
	"[click here](https://evil.example) ![x](https://evil.example/p.png)",
	"\x1b]0;pwned\x07\x1b[2J\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
	"invoice\u202egnp.exe \u2066isolate\u2069 zero\u200bwidth",
	"| fake | table |\n|---|---|\n| x | y |",
	"~~~\n# fenced heading\n~~~",
	"    indented\n# another heading",
	"line one\r\n=====\nsetext heading",
	"&lt;script&gt; &#60;b&#62;",
	"<https://evil.example/autolink>",
	"* item\n+ item\n1. item",
	"> quote\n> # quoted heading",
	strings.Repeat("`", 3000),
	strings.Repeat("x", 300_000),
}

// secrets must never appear in a redacted report.
var secrets = []string{
	"4111 1111 1111 1111", "4111111111111111", "ES9121000418450200051332", "es9121000418450200051332",
	"correct horse battery staple", "hunter2secret", "dXNlcjpodW50ZXIy", "ana.lopez@example.com",
	"MIIEpAIBAAKCAQEA7", "s3cr3t-t0ken-value", "+34 612 345 678", "AKIAIOSFODNN7EXAMPLE",
}

// writeHostileIncident writes every artifact of an incident whose data is
// hostile, into a new incident directory.
func writeHostileIncident(t *testing.T) *incident.Workspace {
	t.Helper()
	ws, err := incident.Open(filepath.Join(t.TempDir(), "inc"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	pick := func(i int) string { return hostile[i%len(hostile)] }
	leak := "pan 4111 1111 1111 1111 123, 4111111111111111 25 EUR, ES9121000418450200051332 SEPA, iban es9121000418450200051332, " +
		`{"password": "correct horse battery staple"}, token=s3cr3t-t0ken-value, Authorization: Basic dXNlcjpodW50ZXIy, ` +
		"mail ana.lopez@example.com, call +34 612 345 678, key AKIAIOSFODNN7EXAMPLE, " +
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----, amqp://app:hunter2secret@10.0.0.7/"
	for i, step := range []string{"contain", "inspect", "classify", "logs", "fix", "redrive", "verify", "check"} {
		ev := incident.Event{Step: step, Time: t0.Add(time.Duration(i) * time.Minute), Queue: pick(i) + " orders-dlq",
			Region: pick(i + 1), Account: pick(i + 2), Verdict: pick(i + 3),
			Command:  []string{"mfdlq", step, "--filter", pick(i + 4), leak},
			Artifact: pick(i + 8)}
		// Every step's text inputs and figures at once: each step reads
		// its own keys (the fix its change, the redrive its filter…).
		in := struct {
			Change  string `json:"change"`
			Filter  string `json:"filter"`
			To      string `json:"to"`
			Group   string `json:"group"`
			Rate    string `json:"rate"`
			Max     int    `json:"max"`
			Canary  int    `json:"canary"`
			Visible int    `json:"visibility"`
		}{pick(i+5) + leak, pick(i + 6), pick(i+9) + leak, pick(i + 10), pick(i + 11), 5, 10, 5}
		fig := struct {
			Note      string `json:"note"`
			Visible   int    `json:"visible"`
			DestQueue string `json:"dest_queue"`
			Trend     string `json:"trend"`
			Location  string `json:"location"`
			Moved     int    `json:"moved"`
		}{pick(i + 7), 3, pick(i+12) + leak, pick(i + 13), pick(i+14) + leak, 340}
		if err := ev.Set(in, fig); err != nil {
			t.Fatal(err)
		}
		if err := ws.Append(ev); err != nil {
			t.Fatal(err)
		}
	}
	// A note and a notification whose every word is hostile: a tag value
	// and a target anyone allowed to tag the queue or set a flag chose.
	for i, ev := range []incident.Event{{Step: "note", Verdict: "set"}, {Step: "note", Verdict: "clear"}, {Step: "notify", Verdict: "failed"}} {
		ev.Time, ev.Queue = t0.Add(time.Duration(10+i)*time.Minute), pick(i)+" orders-dlq"
		n := &note.Note{Text: pick(i+3) + leak, Author: pick(i + 4), At: t0}
		var fig any = note.Figures{Action: ev.Verdict, Note: n}
		switch ev.Step {
		case "notify":
			fig = notify.Figures{Step: pick(i + 5), Target: pick(i + 6), Kind: "webhook", Error: pick(i+7) + leak, Text: leak}
		case "note":
			if ev.Verdict == "clear" {
				fig = note.Figures{Action: ev.Verdict, Replaced: n}
			}
		}
		if err := ev.SetFigures(fig); err != nil {
			t.Fatal(err)
		}
		if err := ws.Append(ev); err != nil {
			t.Fatal(err)
		}
	}
	// 20 bodies of ~118 KiB with 2,000 keys each, plus hostile ones.
	var samples bytes.Buffer
	sw := sqsjson.NewWriter(&samples)
	var keys strings.Builder
	for k := range 2000 {
		fmt.Fprintf(&keys, `,"k%04d_%s":1`, k, strings.Repeat("y", 50))
	}
	for i := range 20 + len(hostile) {
		body := `{"version":2` + keys.String() + "}"
		if i >= 20 {
			body = pick(i) + leak
		}
		m := sqsjson.Message{MessageId: pick(i), Body: body, Attributes: map[string]string{"SentTimestamp": "1764468000000", "ApproximateReceiveCount": "3"}}
		if err := sw.Write(&m); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile(incident.SamplesFile, samples.Bytes()); err != nil {
		t.Fatal(err)
	}
	first, last := t0, t0.Add(time.Hour)
	c := classify.Classification{Verdict: classify.Verdict(pick(3)), Messages: 20, FirstSent: &first, LastSent: &last, Evidence: hostile}
	for i := range 60 {
		fp := fmt.Sprintf("version=%s type=%s {%s}", pick(i), pick(i+1), strings.ReplaceAll(keys.String()[1:], `":1`, ""))
		c.Groups = append(c.Groups, classify.Group{ID: pick(i), Verdict: classify.Verdict(pick(i + 1)), Count: 1, Pattern: pick(i + 2), Fingerprint: fp,
			Signature: "UnsupportedVersionError: version <n> at <uuid> " + pick(i+3), Error: pick(i+4) + leak,
			Evidence: append([]string{leak}, hostile...), Action: pick(i + 5), ReceiveCounts: map[string]int{pick(i): 1},
			FirstSent: first, LastSent: last, Arrivals: []int{1, 0, 2}})
	}
	if err := ws.WriteJSON(incident.ClassificationFile, c); err != nil {
		t.Fatal(err)
	}
	logs := logsearch.Result{Method: logsearch.Method(pick(1)), Groups: hostile[:3], Searched: 80, Found: 60}
	for i := range 80 {
		logs.Messages = append(logs.Messages, logsearch.Record{MessageID: pick(i), Found: i < 60, LogGroup: pick(i + 1), LogStream: pick(i + 2),
			Lines: append(append([]string{}, hostile...), leak, "card 4111111111111111 cvv=123"), Exception: pick(i+3) + leak, Signature: fmt.Sprintf("%s #%d", pick(i+4), i)})
	}
	if err := ws.WriteJSON(incident.LogsFile, logs); err != nil {
		t.Fatal(err)
	}
	visible := 3
	contain := map[string]any{"verdict": pick(0), "reasons": hostile, "dlq": map[string]any{"visible": visible, "trend": pick(1), "window": pick(2), "source": pick(3)},
		"source": map[string]any{"queue": pick(4)}, "mappings": []map[string]any{{"function": pick(5), "uuid": leak}}, "change": map[string]any{"state": pick(6)}}
	if err := ws.WriteJSON(incident.ContainFile, contain); err != nil {
		t.Fatal(err)
	}
	verify := map[string]any{"verdict": pick(7), "reasons": hostile, "returned": []map[string]any{{"body": leak, "id": pick(8)}}, "dest_queue": pick(9), "moved": 3}
	if err := ws.WriteJSON(incident.VerifyFile, verify); err != nil {
		t.Fatal(err)
	}
	var findings []map[string]any
	for i, h := range hostile {
		findings = append(findings, map[string]any{"id": h, "status": pick(i + 1), "title": h + leak, "fix": pick(i + 2)})
	}
	if err := ws.WriteJSON(incident.CheckFile, map[string]any{"findings": findings}); err != nil {
		t.Fatal(err)
	}
	var journal bytes.Buffer
	for i := range 10 {
		fmt.Fprintf(&journal, `{"time":"2026-11-30T03:21:00Z","run":"r1","op":%q,"dlq_message_id":%q,"dest_queue":%q,"attempt":%d}`+"\n", pick(i), pick(i+1), pick(i+2), i+1)
	}
	// A journal can claim any attempt: the attempts table stays bounded.
	fmt.Fprintf(&journal, `{"time":"2026-11-30T03:22:00Z","run":"r2","op":"sent","dlq_message_id":"m","attempt":1000000000}`+"\n")
	if err := ws.WriteFile(incident.JournalFile, journal.Bytes()); err != nil {
		t.Fatal(err)
	}
	return ws
}

// reportHeadings are the headings the report writes itself, in order, for
// an incident where every step ran; groups and messages add level-3
// headings whose text is data, counted separately.
var reportHeadings = []string{
	"1:Incident report:", "2:Timeline", "2:What to change", "1:Appendix", "2:Commands run, in order",
	"2:1. contain", "2:2. inspect", "2:3. classify", "2:4. logs", "2:5. redrive", "2:6. verify", "2:Safeguards",
}

func TestHostileIncidentReportStructure(t *testing.T) {
	t.Parallel()
	ws := writeHostileIncident(t)
	inc, err := LoadIncident(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []ReportOptions{
		{Now: reportNow, Cause: hostile[0] + " db_password: " + secrets[4], Change: hostile[1], Warning: hostile[2] + " token=s3cr3t-t0ken-value", Operator: hostile[3], Command: []string{"mfdlq", "record", "--cause", hostile[0]}},
		{Now: reportNow, NoRedact: true, Cause: hostile[6], Operator: hostile[7]},
	} {
		var b bytes.Buffer
		if _, err := inc.Render(&b, o); err != nil {
			t.Fatal(err)
		}
		src := b.Bytes()
		if len(src) >= 1<<20 {
			t.Errorf("report is %d bytes, want under 1 MiB", len(src))
		}
		for i, line := range bytes.Split(src, []byte("\n")) {
			if len(line) >= 4000 {
				t.Errorf("line %d is %d bytes, want under 4,000", i+1, len(line))
			}
		}
		for i, r := range string(src) {
			if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)) {
				t.Fatalf("report holds %U at byte %d: people cat report.md on a terminal", r, i)
			}
		}
		for _, want := range []string{"| note by ", "| note cleared (it was ", "| notify: telling "} {
			if !bytes.Contains(src, []byte(want)) {
				t.Errorf("the timeline has no %q line", want)
			}
		}
		doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
		var headings []string
		level3 := 0
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch h := n.(type) {
			case *ast.Heading:
				txt := string(h.Lines().Value(src))
				if h.Level == 3 && !strings.HasPrefix(txt, "Commands run") {
					level3++
					return ast.WalkSkipChildren, nil
				}
				headings = append(headings, fmt.Sprintf("%d:%s", h.Level, txt))
			case *ast.HTMLBlock, *ast.RawHTML:
				t.Errorf("raw HTML node in the report: %q", nodeText(n, src))
			case *ast.Link, *ast.Image, *ast.AutoLink:
				if _, ok := n.(*ast.AutoLink); !ok {
					t.Errorf("link or image from data: %q", nodeText(n, src))
				}
			case *ast.Blockquote:
				if !bytes.HasPrefix(n.Lines().Value(src), []byte("Redacted")) && !bytes.HasPrefix(n.Lines().Value(src), []byte("Not redacted")) {
					// The report's only quote is its redaction notice.
					if doc.FirstChild() != nil && n.Parent() != doc {
						t.Errorf("quote from data: %q", nodeText(n, src))
					}
				}
			}
			return ast.WalkContinue, nil
		})
		if len(headings) != len(reportHeadings) {
			t.Fatalf("headings = %q\nwant %q", headings, reportHeadings)
		}
		for i, want := range reportHeadings {
			if !strings.HasPrefix(headings[i], want) {
				t.Errorf("heading %d = %q, want %q…", i, headings[i], want)
			}
		}
		// The report's own level-3 headings: one per group shown (50 of 60)
		// and one per error signature with log lines shown (50 of 60).
		if level3 != 2*maxItems {
			t.Errorf("%d group and message headings, want %d", level3, 2*maxItems)
		}
		if o.NoRedact {
			continue
		}
		for _, s := range secrets {
			if bytes.Contains(src, []byte(s)) {
				t.Errorf("report holds %q in clear", s)
			}
		}
	}
}

func nodeText(n ast.Node, src []byte) string {
	if n.Type() == ast.TypeBlock {
		return string(n.Lines().Value(src))
	}
	if t, ok := n.(*ast.Text); ok {
		return string(t.Segment.Value(src))
	}
	return n.Kind().String()
}

func TestSignaturePlaceholdersShow(t *testing.T) {
	t.Parallel()
	inc := &Incident{}
	for _, s := range []string{"UnsupportedVersionError: version <n> at <uuid>"} {
		html := renderHTML(t, "- "+inc.plain(s, maxValue)+"\n- "+inc.code(s, maxValue)+"\n")
		if strings.Count(html, "&lt;n&gt;") != 2 || strings.Count(html, "&lt;uuid&gt;") != 2 {
			t.Errorf("placeholders do not show: %s", html)
		}
	}
}

func renderHTML(t *testing.T, src string) string {
	t.Helper()
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(src), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
