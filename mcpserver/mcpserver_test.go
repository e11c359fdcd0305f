package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestGuard(t *testing.T) {
	ok := [][]string{
		{"contain", "--queue=q", "--window=30m", "--output=json"},
		{"redrive", "--queue=q", "--rate=10", "--dry-run=true", "--region=eu-west-1", "--output=json"},
		{"ls", "--notes=none"},
	}
	for _, args := range ok {
		if err := Guard(args); err != nil {
			t.Errorf("Guard(%q) = %v, want nil", args, err)
		}
	}
	refused := map[string][]string{
		"no command":             {},
		"a changing command":     {"export", "--queue=q", "--delete=true"},
		"a note":                 {"note", "--queue=q"},
		"a move":                 {"redrive", "--queue=q", "--rate=10"},
		"a move after a dry run": {"redrive", "--queue=q", "--rate=10", "--dry-run=true", "--dry-run=false"},
		"a yes":                  {"redrive", "--queue=q", "--rate=10", "--dry-run=true", "--yes=true"},
		"a mapping pause":        {"contain", "--queue=q", "--pause-mapping=true"},
		"a mapping cap":          {"contain", "--queue=q", "--cap-concurrency=2"},
		"an export file":         {"inspect", "--queue=q", "--out=/etc/passwd"},
		"a positional value":     {"contain", "--queue", "q"},
		"a short flag":           {"contain", "-o", "table"},
		"a table":                {"contain", "--queue=q", "--output=table"},
		"a notify":               {"triage", "--queue=q", "--notify=https://example.com"},
		// A forced peek of a DLQ with its own redrive policy counts each
		// receive toward it: SQS moves the messages on to the next DLQ.
		"a forced inspect":  {"inspect", "--queue=q", "--force=true"},
		"a forced classify": {"classify", "--queue=q", "--force=true"},
		"a forced changes":  {"changes", "--queue=q", "--force=true"},
		"a forced logs":     {"logs", "--queue=q", "--force=true"},
		"a forced triage":   {"triage", "--queue=q", "--force=true"},
		"a forced verify":   {"verify", "--queue=q", "--force=true"},
	}
	for name, args := range refused {
		if err := Guard(args); err == nil {
			t.Errorf("%s: Guard(%q) = nil, want a refusal", name, args)
		}
	}
}

// changing are flags that change something in AWS or write outside the
// incident: none may reach a run, whatever a tool's input.
var changing = []string{"--yes", "--pause-mapping", "--cap-concurrency", "--resume-mapping", "--delete", "--out", "--fixed",
	"--take-over", "--when-ok", "--notify", "--transform", "--transform-file", "--keep", "--lease", "--native", "--from-file", "--force"}

// recorder is a Runner that records each argv and answers with a JSON
// document.
type recorder struct {
	mu   sync.Mutex
	runs [][]string
	out  string
}

func (r *recorder) run(_ context.Context, args []string) Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs = append(r.runs, args)
	return Outcome{Stdout: []byte(r.out), Stderr: []byte("plan: move up to 3 of 3 messages\n")}
}

func connect(t *testing.T, run Runner) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New("test", run).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestNoToolCanMove lists the tools and checks them against the
// allow-list, then calls each with every input field set — hostile values
// that look like flags included — and checks what would have run: a
// read-only command, no changing flag, every value behind its own flag,
// and redrive only as a dry run.
func TestNoToolCanMove(t *testing.T) {
	rec := &recorder{out: `{"ok":true}`}
	cs := connect(t, rec.run)
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint || tl.Annotations.DestructiveHint == nil || *tl.Annotations.DestructiveHint {
			t.Errorf("tool %s is not annotated read-only and not destructive: %+v", tl.Name, tl.Annotations)
		}
	}
	want := []string{"changes", "classify", "contain", "inspect", "logs", "ls", "redrive_plan", "triage", "verify"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %q, want exactly %q", names, want)
	}
	hostile := "--yes --pause-mapping"
	inputs := map[string]any{
		"ls":           LsInput{Prefix: hostile, NonEmpty: true},
		"contain":      ContainInput{Queue: hostile, Window: "30m"},
		"inspect":      InspectInput{Queue: hostile, Max: 5, Payload: ".data"},
		"classify":     ClassifyInput{Queue: hostile, Expect: []string{"--delete"}, Sample: 5, Key: "id", Payload: ".data"},
		"changes":      ChangesInput{Queue: hostile, From: "2026-12-07T00:00:00Z", To: "2026-12-07T01:00:00Z", Functions: []string{"--yes"}},
		"logs":         LogsInput{Queue: hostile, LogGroups: []string{"--out=x"}, IDs: 3, MessageIDs: []string{"m-1"}},
		"triage":       TriageInput{Queue: hostile, LogGroups: []string{"/aws/lambda/x"}, Window: "1h", Peek: 5, NoChanges: true},
		"verify":       VerifyInput{Queue: hostile, NoPeek: true},
		"redrive_plan": RedrivePlanInput{Queue: hostile, Rate: "10", To: "--dry-run=false", Group: "g1", Filter: ".x", Max: 3, SentAfter: "2026-12-07T00:00:00Z", SentBefore: "2026-12-07T01:00:00Z"},
	}
	for _, name := range want {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: inputs[name]})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
	}
	if len(rec.runs) != len(want) {
		t.Fatalf("%d runs for %d tools", len(rec.runs), len(want))
	}
	commands := map[string]bool{}
	for _, tl := range Tools {
		commands[tl.Command] = true
	}
	for _, args := range rec.runs {
		if err := Guard(args); err != nil {
			t.Errorf("%q: %v", args, err)
		}
		if !commands[args[0]] {
			t.Errorf("%q runs %s, no tool's command", args, args[0])
		}
		for _, a := range args[1:] {
			name, _, _ := strings.Cut(a, "=")
			if slices.Contains(changing, name) {
				t.Errorf("%q passes %s", args, name)
			}
		}
		if args[0] == "redrive" && args[len(args)-1] != "--dry-run=true" {
			t.Errorf("redrive without a final --dry-run=true: %q", args)
		}
		if args[0] != "ls" && !slices.Contains(args, "--queue="+hostile) {
			t.Errorf("%q: the queue is not behind --queue=", args)
		}
	}
}

// TestResultsAreCleaned: a command's JSON holding a terminal escape, a bidi
// override, secrets, a long value and a long array reaches the agent
// without any of them whole.
func TestResultsAreCleaned(t *testing.T) {
	doc := map[string]any{
		"body":    "{\"password\":\"hunter2\",\"key\":\"AKIAIOSFODNN7EXAMPLE\"}\x1b]52;c;aGk=\x07\u202eevil",
		"long":    strings.Repeat("a", 100000),
		"items":   make([]int, 1000),
		"\x1bkey": "v",
		"payload": map[string]any{"password": "hunter2", "pin": 1234, "order": "o-1"},
	}
	b, _ := json.Marshal(doc)
	rec := &recorder{out: string(b)}
	cs := connect(t, rec.run)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "classify", Arguments: ClassifyInput{Queue: "q"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if bad := Unsafe(text); bad != "" {
		t.Errorf("the result holds %s", bad)
	}
	if strings.Contains(text, "1234") {
		t.Errorf("a pin kept its value: %.300s", text)
	}
	if len(text) > MaxResult || strings.Contains(text, strings.Repeat("a", maxString+1)) {
		t.Errorf("the result is %d bytes, a string in it not shortened", len(text))
	}
	if !strings.Contains(text, "more items left out") || !strings.Contains(text, "[redacted:") {
		t.Errorf("no cut array or no redaction said: %.300s", text)
	}
}

// Unsafe says what in a tool's result text would reach an agent raw: a
// control or bidi character in the text or in any string its JSON
// decodes to, or one of the test's secrets; "" when none.
func Unsafe(text string) string {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return "no JSON: " + err.Error()
	}
	var all []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			all = append(all, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				all = append(all, k)
				walk(e)
			}
		}
	}
	walk(v)
	for _, s := range append(all, text) {
		for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u2066", "hunter2", "AKIAIOSFODNN7EXAMPLE"} {
			if strings.Contains(s, bad) {
				return fmt.Sprintf("%q in %.80q", bad, s)
			}
		}
	}
	return ""
}

func TestRedrivePlanSaysTheCommand(t *testing.T) {
	rec := &recorder{}
	cs := connect(t, rec.run)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "redrive_plan", Arguments: RedrivePlanInput{Queue: "orders-dlq", Rate: "10", Filter: `.version == "2"`}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var got struct {
		DryRun  bool     `json:"dry_run"`
		Plan    []string `json:"plan"`
		Command string   `json:"command"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got); err != nil {
		t.Fatal(err)
	}
	want := `mfdlq redrive --queue=orders-dlq --rate=10 '--filter=.version == "2"'`
	if !got.DryRun || got.Command != want || len(got.Plan) != 1 {
		t.Errorf("got %+v, want a dry run, command %s and one plan line", got, want)
	}
}
