package transform

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/sqsjson"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// previewMessages are a selection as a DLQ holds it: orders with personal
// data, a notification whose text Message holds a card number, terminal
// escapes and a bidi control, one the program fails on, one it leaves
// alone, and a notification of an order.
func previewMessages() []sqsjson.Message {
	sns := `{"Type":"Notification","MessageId":"6f5c3b7e","TopicArn":"arn:aws:sns:us-east-1:123456789012:orders",` +
		`"Message":"{\"order_id\":\"ord-104203\",\"version\":2,\"customer\":{\"email\":\"gina.1@example.com\"}}","Timestamp":"2024-03-10T22:04:00.000Z",` +
		`"SignatureVersion":"1","Signature":"EXAMPLE","SigningCertURL":"https://sns.us-east-1.amazonaws.com/x.pem","UnsubscribeURL":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"}`
	return []sqsjson.Message{
		{MessageId: "0f1e2d3c-0001", Body: order2},
		{MessageId: "0f1e2d3c-0002", Body: strings.Replace(sns, `"Message":"{\"order_id\":\"ord-104203\",\"version\":2,\"customer\":{\"email\":\"gina.1@example.com\"}}"`,
			`"Message":"order ord-104201 v2 paid with 4111 1111 1111 1111 \u001b[31mRED\u001b[0m \u202etxt.exe"`, 1)},
		{MessageId: "0f1e2d3c-0003", Body: `{"order_id":"ord-104202","version":"two","customer":{"email":"bruno.7@example.com"}}`},
		{MessageId: "0f1e2d3c-0004", Body: `{"order_id":"ord-104204","version":1}`},
		{MessageId: "0f1e2d3c-0005", Body: sns},
		{MessageId: "0f1e2d3c-0006", Body: strings.Replace(order2, "ord-104200", "ord-104206", 1)},
	}
}

const previewProgram = `if type == "string" then sub("v2"; "v1")
elif .version == "two" then error("version \(.version) of \(.customer.email)")
else .version = 1 end`

// TestPreviewGolden pins what the operator reads before anything moves:
// counts, three redacted diffs, the failure, and nothing raw.
func TestPreviewGolden(t *testing.T) {
	p, err := Compile(previewProgram, "--transform-file fix.jq")
	if err != nil {
		t.Fatal(err)
	}
	pv := NewPreview(p)
	for i, m := range previewMessages() {
		pv.Add(i+1, &m, p.Apply(context.Background(), &m, Limits{}))
	}
	f := pv.Figures()
	if f.Changed != 4 || f.Unchanged != 1 || f.Failed != 1 || f.Unsigned != 2 || len(f.Examples) != 3 {
		t.Fatalf("figures %+v", f)
	}
	var out bytes.Buffer
	f.Write(&out)
	for _, l := range PlanLines(f, true, UndoCommand("incidents/orders-dlq/transform-originals.jsonl", "orders-dlq", 10)) {
		out.WriteString(l + "\n")
	}
	got := out.String()
	for _, secret := range []string{"ana.123@example.com", "612 345 678", "4111 1111 1111 1111", "bruno.7@example.com", "\x1b", "\u202e", "gina.1@example.com"} {
		if strings.Contains(got, secret) {
			t.Errorf("the preview shows %q", secret)
		}
	}
	golden(t, "preview.golden", got)
}

// TestPreviewBounds: a payload of a megabyte shows a bounded diff.
func TestPreviewBounds(t *testing.T) {
	p, err := Compile(`.items |= map(.qty = 1)`, "--transform")
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	for range 20000 {
		items = append(items, `{"qty":2,"sku":"SKU-1234"}`)
	}
	m := sqsjson.Message{MessageId: "big", Body: `{"items":[` + strings.Join(items, ",") + `]}`}
	pv := NewPreview(p)
	pv.Add(1, &m, p.Apply(context.Background(), &m, Limits{MaxBytes: 1 << 20}))
	f := pv.Figures()
	if len(f.Examples) != 1 || len(f.Examples[0].Diff) > maxDiffLines+1 {
		t.Fatalf("examples %d, diff lines %d", len(f.Examples), len(f.Examples[0].Diff))
	}
	var out bytes.Buffer
	f.Write(&out)
	if out.Len() > 8<<10 {
		t.Fatalf("preview of one message is %d bytes", out.Len())
	}
}

// TestPreviewCarriesRedaction: a program that moves a secret's value to a
// field, an attribute, a string inside a string or its own error, under
// names that do not say secret, shows it redacted on both sides: each
// side of the diff was redacted alone (issue 48: "a secret survives a
// rename").
func TestPreviewCarriesRedaction(t *testing.T) {
	const secret = "hunter2-Zq9!x"
	body := `{"order_id":"ord-1","password":"` + secret + `","pin":"8842","version":2}`
	for _, tc := range []struct{ name, program string }{
		{"renamed", `.note = .password | del(.password)`},
		{"kept and copied", `.note = .password | .version = 1`},
		{"into a string", `.note = ({p: .password, x: "\"q"} | tojson) | del(.password)`},
		{"into a sentence", `.note = "was " + .password + " before" | del(.password)`},
		{"short pin", `.code = .pin | del(.pin)`},
		{"into an attribute", `.version = 1 | set_attributes(.hint = {DataType: "String", StringValue: "p=" + $message.MessageId + .password?})`},
		{"attribute from payload", `. as $p | .version = 1 | set_attributes(.hint = {DataType: "String", StringValue: $p.password})`},
		{"its own error", `error("bad: " + .password)`},
		{"upper case", `.note = (.password | ascii_upcase) | del(.password)`},
		{"base64", `.note = (.password | @base64) | del(.password)`},
		{"an attribute's secret into the payload", `.note = $attributes.api_token.StringValue`},
		{"an attribute's secret renamed", `.version = 1 | set_attributes(.note = .api_token | del(.api_token))`},
		{"its own error, whole", `error(.password)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.program, "--transform")
			if err != nil {
				t.Fatal(err)
			}
			pv := NewPreview(p)
			tok := "tok-7Hq2-hunter2-zz"
			m := sqsjson.Message{MessageId: "m-1", Body: body, MessageAttributes: map[string]sqsjson.MessageAttributeValue{"api_token": {DataType: "String", StringValue: &tok}}}
			r := p.Apply(context.Background(), &m, Limits{})
			pv.Add(1, &m, r)
			var out bytes.Buffer
			pv.Figures().Write(&out)
			if r.Outcome == Changed && len(pv.Figures().Examples) != 1 {
				t.Fatalf("no example: %s", out.String())
			}
			for _, leak := range []string{"hunter2", "HUNTER2", "8842", "aHVudGVy"} {
				if strings.Contains(out.String(), leak) {
					t.Errorf("the preview shows %q:\n%s", leak, out.String())
				}
			}
			if !strings.Contains(out.String(), "[redacted:secret]") {
				t.Errorf("the preview redacts nothing:\n%s", out.String())
			}
		})
	}
}
