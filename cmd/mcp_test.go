package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcpcmd "github.com/mfdlq/mfdlq/cmd/mcp"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestMCPOverStdio drives the built binary's `mfdlq mcp` over its stdin and
// stdout against the local AWS, as a client configured per docs/mcp.md
// would: initialize, the tools listed (exactly the read-only nine), a
// redrive_plan on a seeded DLQ (a dry run: the plan and the command a
// person runs), and classify and inspect calls on a DLQ whose bodies and
// attributes hold terminal escapes, bidi controls and secrets, whose
// results hold none of them. Nothing moved: the DLQ keeps its messages, none in flight
// once the peeks' 5 s have passed, and the source queue stays empty.
func TestMCPOverStdio(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ep := localaws.Endpoint(t)
	seed := localaws.NewSeeder(localaws.Config(t))
	name := localaws.UniqueName("mcp")
	srcURL, dlqURL, err := seed.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		t.Fatal(err)
	}
	bodies := []string{
		"{\"version\":2,\"password\":\"hunter2\",\"note\":\"\\u001b]52;c;aGk=\\u0007 \u202eevil\"}",
		"raw \x1b[2J\x1b]0;pwned\x07 text with AKIAIOSFODNN7EXAMPLE \u2066",
	}
	attrs := map[string]string{"ErrorMessage": "boom \x1b[31m password=hunter2 \u202e key AKIAIOSFODNN7EXAMPLE"}
	if err := seed.Send(ctx, dlqURL, bodies, attrs); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(mfdlqBinary(t), "mcp", "--incident", t.TempDir()+"/inc")
	c.Env = os.Environ()
	for k, v := range localaws.Env(ep) {
		c.Env = append(c.Env, k+"="+v)
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mfdlq-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Name; got != "mfdlq" {
		t.Errorf("server %q, want mfdlq", got)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 9 {
		t.Errorf("%d tools, want the 9 read-only ones", len(list.Tools))
	}

	plan := callTool(ctx, t, cs, "redrive_plan", map[string]any{"queue": name + "-dlq", "rate": "10"})
	if !strings.Contains(plan, `"dry_run":true`) || !strings.Contains(plan, `"command":"mfdlq redrive --queue=`+name+`-dlq --rate=10"`) {
		t.Errorf("redrive_plan: %s", plan)
	}
	got := callTool(ctx, t, cs, "classify", map[string]any{"queue": name + "-dlq", "sample": 10})
	if bad := unsafeForAgent(got); bad != "" {
		t.Errorf("classify's result holds %s:\n%s", bad, got)
	}
	if !strings.Contains(got, `"messages":2`) {
		t.Errorf("classify did not see the 2 messages: %.400s", got)
	}
	// inspect's result quotes the bodies themselves.
	peek := callTool(ctx, t, cs, "inspect", map[string]any{"queue": name + "-dlq", "max": 10})
	if bad := unsafeForAgent(peek); bad != "" {
		t.Errorf("inspect's result holds %s:\n%s", bad, peek)
	}
	if !strings.Contains(peek, "[redacted:") {
		t.Errorf("inspect's result shows no redaction: %.400s", peek)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}

	deadline := time.Now().Add(15 * time.Second)
	for {
		v, f, err := seed.Depth(ctx, dlqURL)
		if err != nil {
			t.Fatal(err)
		}
		if v == 2 && f == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the DLQ shows %d visible, %d in flight; want 2 and 0: something moved or stayed hidden", v, f)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if v, f, err := seed.Depth(ctx, srcURL); err != nil || v+f != 0 {
		t.Errorf("the source queue holds %d + %d (%v): something was moved", v, f, err)
	}
}

func callTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, b.String())
	}
	return b.String()
}

// unsafeForAgent says what in a result would reach an agent raw: a control
// or bidi character in the text or in any string its JSON decodes to, or a
// seeded secret; "" when none.
func unsafeForAgent(text string) string {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return "no JSON: " + err.Error()
	}
	all := []string{text}
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
	for _, s := range all {
		for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u2066", "hunter2", "AKIAIOSFODNN7EXAMPLE"} {
			if strings.Contains(s, bad) {
				return fmt.Sprintf("%q in %.80q", bad, s)
			}
		}
	}
	return ""
}

// TestMCPToolsTellNobody: MFDLQ_NOTIFY in the operator's environment does
// not reach a tool's run: an agent's verify must not tell the team's
// channel (the guard refuses --notify; the variable is the same target).
// A wrong target shows it: verify's check of MFDLQ_NOTIFY would refuse to
// run.
func TestMCPToolsTellNobody(t *testing.T) {
	t.Setenv("MFDLQ_NOTIFY", "http://hooks.example/services/T0/B0/SECRET")
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	d, _, _ := testDeps(t, false)
	d.Global.Region, d.Global.EndpointURL = "us-east-1", "http://127.0.0.1:1" // no AWS is reached
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	d.IO.In, d.IO.Out = inR, outW
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	c := mcpcmd.NewCmdMCP(d, runDeps, nil)
	c.SetArgs(nil)
	go func() { done <- c.ExecuteContext(ctx); outW.Close() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "verify", Arguments: map[string]any{"queue": "orders-dlq"}})
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	<-done
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok && strings.Contains(tc.Text, "MFDLQ_NOTIFY") {
			t.Fatalf("the tool's run read MFDLQ_NOTIFY: %s", tc.Text)
		}
	}
	if os.Getenv("MFDLQ_NOTIFY") != "" {
		t.Errorf("MFDLQ_NOTIFY is still set in mfdlq mcp's process")
	}
}
