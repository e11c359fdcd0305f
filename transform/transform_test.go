package transform

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// order2 is one of the seed's version-2 orders (internal/demo/scenario).
const order2 = `{"currency":"EUR","customer":{"email":"ana.123@example.com","phone":"+34 612 345 678"},"items":[{"qty":2,"sku":"SKU-1234"}],"order_id":"ord-104200","total":19.990,"version":2}`

func compile(t *testing.T, src string) *Program {
	t.Helper()
	p, err := Compile(src, "--transform")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sattr(v string) sqsjson.MessageAttributeValue {
	return sqsjson.MessageAttributeValue{DataType: "String", StringValue: &v}
}

// TestCompileErrors: every error is one line naming the flag, found before
// any message is read.
func TestCompileErrors(t *testing.T) {
	tests := []struct{ src, origin, want string }{
		{".version = 1 | .foo(", "--transform", `--transform: syntax error at line 1, column 20: unexpected token "(": fix the program (jq syntax)`},
		{".version = 1\n| .items[] |= (.qty = \n", "--transform-file fix.jq", `--transform-file fix.jq: syntax error at line 3, column 1: unexpected EOF: fix the program (jq syntax)`},
		{".version = nosuch", "--transform", "--transform: function not defined: nosuch/0: fix the program"},
		{".x = $undefined", "--transform", "--transform: variable not defined: $undefined: fix the program"},
		{"  ", "--transform", "--transform: the program is empty: give a jq program such as '.version = 1'"},
		{strings.Repeat(" ", MaxProgram) + ".", "--transform", "--transform: the program is 65537 bytes, over 65536: keep a repair to a few lines"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.src, tt.origin)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Compile(%q):\n got %v\nwant %s", tt.src, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("error of %q is more than one line", tt.src)
		}
	}
}

// TestApply covers the outcomes on a bare message.
func TestApply(t *testing.T) {
	ctx := context.Background()
	m := &sqsjson.Message{MessageId: "m-1", Body: order2, MessageAttributes: map[string]sqsjson.MessageAttributeValue{"tenant": sattr("acme")},
		Attributes: map[string]string{"SentTimestamp": "1710108240000"}}
	tests := []struct {
		name, program string
		outcome       Outcome
		body          string // the repaired body (Changed)
		reason        string // a part of the reason (Failed)
	}{
		{"translate", ".version = 1", Changed, strings.Replace(order2, `"version":2`, `"version":1`, 1), ""},
		{"translate and more", `.version = 1 | .items |= map(.quantity = .qty | del(.qty))`, Changed,
			`{"currency":"EUR","customer":{"email":"ana.123@example.com","phone":"+34 612 345 678"},"items":[{"quantity":2,"sku":"SKU-1234"}],"order_id":"ord-104200","total":19.990,"version":1}`, ""},
		{"identity", ".", Unchanged, "", ""},
		{"same value", ".version = 2", Unchanged, "", ""},
		{"runtime error", `if .total < 100 then error("order \(.order_id) is too small") else . end`, Failed, "", "program error: order ord-104200 is too small"},
		{"type error", ".customer.email.x = 1", Failed, "", "cannot be applied"},
		{"no output", "select(.version == 1)", Failed, "", "gave no output"},
		{"two outputs", ".version = (1, 2)", Failed, "", "more than one output"},
		{"over the size limit", `.pad = ("x" * 262144)`, Failed, "", "over the destination's 262144"},
		{"no environment", `.env = $ENV`, Changed, `{"currency":"EUR","customer":{"email":"ana.123@example.com","phone":"+34 612 345 678"},"env":{},"items":[{"qty":2,"sku":"SKU-1234"}],"order_id":"ord-104200","total":19.990,"version":2}`, ""},
		{"reads $message", `.from = $message.MessageId | .sent = $message.Attributes.SentTimestamp | .kind = $message.Envelope.kind | .tenant = $attributes.tenant.StringValue`, Changed,
			`{"currency":"EUR","customer":{"email":"ana.123@example.com","phone":"+34 612 345 678"},"from":"m-1","items":[{"qty":2,"sku":"SKU-1234"}],"kind":"raw","order_id":"ord-104200","sent":"1710108240000","tenant":"acme","total":19.990,"version":2}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := compile(t, tt.program).Apply(ctx, m, Limits{})
			if r.Outcome != tt.outcome {
				t.Fatalf("outcome %s (%s), want %s", r.Outcome, r.Reason, tt.outcome)
			}
			switch tt.outcome {
			case Changed:
				if r.Message.Body != tt.body {
					t.Errorf("body\n%s\nwant\n%s", r.Message.Body, tt.body)
				}
				if r.Message.MessageId != m.MessageId || r.Message.Attributes["SentTimestamp"] != "1710108240000" || *r.Message.MessageAttributes["tenant"].StringValue != "acme" {
					t.Errorf("the copy lost what the program did not touch: %+v", r.Message)
				}
			case Unchanged:
				if r.Message != m {
					t.Error("an unchanged message must be sent as it came")
				}
			case Failed:
				if r.Message != nil || !strings.Contains(r.Reason, tt.reason) {
					t.Errorf("message %v, reason %q; want %q", r.Message, r.Reason, tt.reason)
				}
			}
			if m.Body != order2 {
				t.Fatal("Apply changed the original")
			}
		})
	}
}

// TestAttributes: set_attributes replaces the message attributes; what
// SQS would refuse fails the message.
func TestAttributes(t *testing.T) {
	ctx := context.Background()
	m := &sqsjson.Message{MessageId: "m-1", Body: order2, MessageAttributes: map[string]sqsjson.MessageAttributeValue{
		"tenant": sattr("acme"), "schema": sattr("2")}}
	tests := []struct {
		program string
		want    map[string]string // name → value (Changed)
		reason  string
	}{
		{`.version = 1 | set_attributes(.schema.StringValue = "1")`, map[string]string{"tenant": "acme", "schema": "1"}, ""},
		{`set_attributes(del(.tenant))`, map[string]string{"schema": "2"}, ""},
		{`set_attributes(.count = {DataType: "Number", StringValue: "42"})`, map[string]string{"tenant": "acme", "schema": "2", "count": "42"}, ""},
		{`set_attributes(. + ([range(9)] | map({key: "a\(.)", value: {DataType: "String", StringValue: "x"}}) | from_entries))`, nil, "has 11 message attributes: SQS takes at most 10"},
		{`set_attributes(.["bad name"] = {DataType: "String", StringValue: "x"})`, nil, `attribute name "bad name" is not one SQS takes`},
		{`set_attributes(.["AWS.trace"] = {DataType: "String", StringValue: "x"})`, nil, "reserved"},
		{`set_attributes(.n = {DataType: "Number", StringValue: "forty"})`, nil, "is not a number"},
		{`set_attributes(.n = {DataType: "Integer", StringValue: "4"})`, nil, "is not String, Number or Binary"},
		{`set_attributes(.e = {DataType: "String", StringValue: ""})`, nil, "needs a non-empty StringValue"},
		{`set_attributes(.n = {DataType: "Number", StringValue: 4})`, nil, "must be a string"},
		{`set_attributes(.tenant.StringValue = "a\u0000b")`, nil, "U+0000"},
		{`set_attributes(.) | .version = 1`, nil, "set_attributes must be the program's last step"},
	}
	for _, tt := range tests {
		r := compile(t, tt.program).Apply(ctx, m, Limits{})
		if tt.want == nil {
			if r.Outcome != Failed || !strings.Contains(r.Reason, tt.reason) {
				t.Errorf("%s: %s %q; want failed with %q", tt.program, r.Outcome, r.Reason, tt.reason)
			}
			continue
		}
		if r.Outcome != Changed || !r.AttributesChanged {
			t.Fatalf("%s: %s %q", tt.program, r.Outcome, r.Reason)
		}
		got := map[string]string{}
		for k, v := range r.Message.MessageAttributes {
			got[k] = *v.StringValue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: attributes %v, want %v", tt.program, got, tt.want)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%s: attributes %v, want %v", tt.program, got, tt.want)
			}
		}
	}
	if r := compile(t, `set_attributes(.)`).Apply(ctx, m, Limits{}); r.Outcome != Unchanged {
		t.Errorf("set_attributes(.) is %s, want unchanged", r.Outcome)
	}
}

// TestLimits: the size counts the attributes, the limit follows the
// destination, and the FIFO group travels.
func TestLimits(t *testing.T) {
	ctx := context.Background()
	big := compile(t, `.pad = ("x" * 300000)`)
	m := &sqsjson.Message{MessageId: "m-1", Body: order2}
	if r := big.Apply(ctx, m, Limits{MaxBytes: 1 << 20}); r.Outcome != Changed {
		t.Errorf("300 KB into a 1 MiB queue: %s %s", r.Outcome, r.Reason)
	}
	// 262,144 bytes of body fit alone, not with an attribute.
	exact := compile(t, `"x" * 262144`)
	text := &sqsjson.Message{MessageId: "t", Body: "hello"}
	if r := exact.Apply(ctx, text, Limits{}); r.Outcome != Changed {
		t.Errorf("262144 bytes: %s %s", r.Outcome, r.Reason)
	}
	text.MessageAttributes = map[string]sqsjson.MessageAttributeValue{"a": sattr("b")}
	if r := exact.Apply(ctx, text, Limits{}); r.Outcome != Failed || !strings.Contains(r.Reason, "262152 bytes with its attributes") {
		t.Errorf("262144 bytes and an attribute: %s %s", r.Outcome, r.Reason)
	}
	fifo := &sqsjson.Message{MessageId: "f", Body: order2, Attributes: map[string]string{"MessageGroupId": "customer-7", "MessageDeduplicationId": "d-1"}}
	r := compile(t, ".version = 1").Apply(ctx, fifo, Limits{})
	if r.Outcome != Changed || r.Message.Attributes["MessageGroupId"] != "customer-7" || r.Message.Attributes["MessageDeduplicationId"] != "d-1" {
		t.Errorf("FIFO copy: %s %+v", r.Outcome, r.Message)
	}
}

// TestTextPayload: a payload that is not JSON is a string; a string output
// is the new text, and characters SQS refuses fail the message.
func TestTextPayload(t *testing.T) {
	ctx := context.Background()
	m := &sqsjson.Message{MessageId: "t", Body: "order ord-1 v2"}
	r := compile(t, `sub("v2"; "v1")`).Apply(ctx, m, Limits{})
	if r.Outcome != Changed || r.Message.Body != "order ord-1 v1" {
		t.Fatalf("%s %q %+v", r.Outcome, r.Reason, r.Message)
	}
	r = compile(t, `{text: .}`).Apply(ctx, m, Limits{})
	if r.Outcome != Changed || r.Message.Body != `{"text":"order ord-1 v2"}` {
		t.Fatalf("%s %q", r.Outcome, r.Reason)
	}
	r = compile(t, `""`).Apply(ctx, m, Limits{})
	if r.Outcome != Failed || !strings.Contains(r.Reason, "empty") {
		t.Fatalf("%s %q", r.Outcome, r.Reason)
	}
	r = compile(t, `. + "\u0001"`).Apply(ctx, m, Limits{})
	if r.Outcome != Failed || !strings.Contains(r.Reason, "U+0001") {
		t.Fatalf("%s %q", r.Outcome, r.Reason)
	}
}

// TestTimeout: a program that never ends fails its message.
func TestTimeout(t *testing.T) {
	p := compile(t, `last(range(1e15))`)
	p.Timeout = 50 * time.Millisecond
	start := time.Now()
	r := p.Apply(context.Background(), &sqsjson.Message{MessageId: "m", Body: order2}, Limits{})
	if r.Outcome != Failed || !strings.Contains(r.Reason, "ran out of time") {
		t.Fatalf("%s %q", r.Outcome, r.Reason)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
}

// TestReasonIsSafe: a reason quoting hostile data holds no raw control
// character and is bounded.
func TestReasonIsSafe(t *testing.T) {
	m := &sqsjson.Message{MessageId: "m", Body: `{"name":"\u001b]0;pwned\u0007` + strings.Repeat("A", 5000) + `"}`}
	r := compile(t, `error(.name)`).Apply(context.Background(), m, Limits{})
	if r.Outcome != Failed {
		t.Fatal(r.Outcome)
	}
	if strings.ContainsAny(r.Reason, "\x1b\x07\n") || len(r.Reason) > maxReason+20 {
		t.Fatalf("reason %q (%d bytes)", r.Reason[:min(80, len(r.Reason))], len(r.Reason))
	}
}

// TestSNSEnvelope: the program sees the Message; the copy is the same
// notification around the repaired Message, unsigned.
func TestSNSEnvelope(t *testing.T) {
	body := `{"Type":"Notification","MessageId":"6f5c3b7e","TopicArn":"arn:aws:sns:us-east-1:123456789012:orders","Message":"{\"order_id\":\"o-1\",\"version\":2}",` +
		`"Timestamp":"2024-03-10T22:04:00.000Z","SignatureVersion":"1","Signature":"EXAMPLE","SigningCertURL":"https://sns.us-east-1.amazonaws.com/x.pem","UnsubscribeURL":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"}`
	m := &sqsjson.Message{MessageId: "s", Body: body}
	if !NeedsSignaturePlan(m) {
		t.Error("an SNS message needs the signature line")
	}
	r := compile(t, ".version = 1").Apply(context.Background(), m, Limits{})
	want := `{"Type":"Notification","MessageId":"6f5c3b7e","TopicArn":"arn:aws:sns:us-east-1:123456789012:orders","Message":"{\"order_id\":\"o-1\",\"version\":1}",` +
		`"Timestamp":"2024-03-10T22:04:00.000Z","UnsubscribeURL":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"}`
	if r.Outcome != Changed || r.Message.Body != want || len(r.Dropped) != 3 {
		t.Fatalf("%s %q\n%s\ndropped %v", r.Outcome, r.Reason, r.Message.Body, r.Dropped)
	}
	if u := compile(t, ".").Apply(context.Background(), m, Limits{}); u.Outcome != Unchanged || u.Message.Body != body {
		t.Fatal("an unchanged notification keeps its signature")
	}
}

func TestUndoCommand(t *testing.T) {
	tests := []struct {
		path, dlq string
		rate      float64
		want      string
	}{
		{"incidents/orders-dlq-20261202T0100Z/transform-originals.jsonl", "orders-dlq", 10,
			"mfdlq redrive --from-file incidents/orders-dlq-20261202T0100Z/transform-originals.jsonl --to orders-dlq --rate 10"},
		{"/tmp/my incident/transform-originals.jsonl", "orders-dlq.fifo", 0,
			"mfdlq redrive --from-file '/tmp/my incident/transform-originals.jsonl' --to orders-dlq.fifo --rate max"},
		{"it's/x.jsonl", "q", 2.5, `mfdlq redrive --from-file 'it'\''s/x.jsonl' --to q --rate 2.5`},
	}
	for _, tt := range tests {
		if got := UndoCommand(tt.path, tt.dlq, tt.rate); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := ReadFile(dir + "/none.jq"); err == nil || !strings.HasPrefix(err.Error(), "--transform-file "+dir+"/none.jq: ") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestConcurrentApply: the mover's workers share one Program (run with
// -race).
func TestConcurrentApply(t *testing.T) {
	p := compile(t, `.version = 1 | set_attributes(.schema.StringValue = "1")`)
	done := make(chan Result)
	for i := range 8 {
		go func() {
			m := &sqsjson.Message{MessageId: "m", Body: strings.Replace(order2, "ord-104200", "ord-"+string(rune('a'+i)), 1),
				MessageAttributes: map[string]sqsjson.MessageAttributeValue{"schema": sattr("2")}}
			var r Result
			for range 50 {
				r = p.Apply(context.Background(), m, Limits{})
			}
			done <- r
		}()
	}
	for range 8 {
		if r := <-done; r.Outcome != Changed || *r.Message.MessageAttributes["schema"].StringValue != "1" {
			t.Fatalf("%s %s", r.Outcome, r.Reason)
		}
	}
}

// TestApplyBoundsOutputBeforeEncoding: a program that builds a string far
// over the destination's limit fails on the size of what it gave, before
// that is encoded, compared, re-wrapped and scanned — each a copy of the
// whole (issue 48: 22 s and 2.6 GiB for one message in a dry run).
func TestApplyBoundsOutputBeforeEncoding(t *testing.T) {
	for _, tc := range []struct{ name, program, body string }{
		{"a field", `.big = ("x" * 41943040)`, `{"order_id":"ord-1"}`},
		{"a text payload", `. + ("x" * 41943040)`, `plain text`},
		{"many small values", `[range(2000000)]`, `{"order_id":"ord-1"}`},
		{"an attribute", `set_attributes(.big = {DataType: "String", StringValue: ("x" * 41943040)})`, `{"order_id":"ord-1"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.program, "--transform")
			if err != nil {
				t.Fatal(err)
			}
			p.Timeout = time.Minute // the bound under test is the size, not the time
			m := sqsjson.Message{MessageId: "m-1", Body: tc.body}
			// What the program itself costs (gojq's values), then Apply's whole.
			ran := allocated(func() {
				d := envelope.Decode(&m)
				p.run(context.Background(), d.Value, map[string]any{}, messageValue(&m, d.Kind))
			})
			var r Result
			applied := allocated(func() { r = p.Apply(context.Background(), &m, Limits{}) })
			// Apply copies nothing of the output: what it allocates beyond
			// the program's own values is small.
			if applied > ran+ran/10+4<<20 {
				t.Errorf("Apply allocated %d MiB, the program alone %d MiB", applied>>20, ran>>20)
			}
			if r.Outcome != Failed || !strings.Contains(r.Reason, "over the destination's 262144 bytes") || !strings.Contains(r.Reason, "not encoded") {
				t.Errorf("outcome %s, reason %q", r.Outcome, r.Reason)
			}
		})
	}
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestApplyInterrupted: a message worked on when the caller's context
// ends is no verdict: Interrupted, and a preview does not count it.
func TestApplyInterrupted(t *testing.T) {
	p, err := Compile(`def f: f; f`, "--transform")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := sqsjson.Message{MessageId: "m-1", Body: `{"a":1}`}
	r := p.Apply(ctx, &m, Limits{})
	if r.Outcome != Failed || !r.Interrupted {
		t.Fatalf("outcome %s, interrupted %v, reason %q", r.Outcome, r.Interrupted, r.Reason)
	}
	pv := NewPreview(p)
	pv.Add(1, &m, r)
	if f := pv.Figures(); f.Failed != 0 || len(f.FailureTexts) != 0 {
		t.Fatalf("an interrupted message counted: %+v", f)
	}
}

// TestApplyRunsTwoProgramsAtOnce: whatever the number of workers, at
// most maxRuns programs run at once, so a program that builds a huge
// value costs that many of them, not one a worker (a move with 8 workers
// and a 200 MB string peaked at 1.6 GB). A run waiting for its turn is
// not out of time: every message still gets its own 2 s.
func TestApplyRunsTwoProgramsAtOnce(t *testing.T) {
	p := compile(t, `.big = ("x" * 20000000)`)
	p.Timeout = 30 * time.Second
	done := make(chan Result)
	for range 8 {
		go func() {
			done <- p.Apply(context.Background(), &sqsjson.Message{MessageId: "m", Body: order2}, Limits{})
		}()
	}
	for range 8 {
		if r := <-done; r.Outcome != Failed || !strings.Contains(r.Reason, "over the destination's") {
			t.Fatalf("%s %s", r.Outcome, r.Reason)
		}
	}
	runs.mu.Lock()
	defer runs.mu.Unlock()
	if runs.peak < 1 || runs.peak > maxRuns {
		t.Fatalf("%d programs ran at once, want at most %d", runs.peak, maxRuns)
	}
}
