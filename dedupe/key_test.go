package dedupe

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// detect is the payload as the mover finds it.
func detect(m *sqsjson.Message) ([]byte, bool) {
	env := envelope.Detect(m)
	return env.Payload, env.PayloadJSON
}

func sns(inner string) string {
	b, _ := json.Marshal(map[string]string{"Type": "Notification", "MessageId": "n-1", "TopicArn": "arn:aws:sns:eu-west-1:123456789012:orders",
		"Message": inner, "Timestamp": "2026-12-02T03:00:00.000Z", "SignatureVersion": "1", "Signature": "x", "SigningCertURL": "https://sns.eu-west-1.amazonaws.com/c.pem",
		"UnsubscribeURL": "https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe"})
	return string(b)
}

func TestKeyOf(t *testing.T) {
	k, err := Compile(`"cobro:" + .order_id`, detect)
	if err != nil {
		t.Fatal(err)
	}
	eb := `{"version":"0","id":"e-1","detail-type":"OrderPlaced","source":"shop","account":"123456789012","time":"2026-12-02T03:00:00Z","region":"eu-west-1","resources":[],"detail":{"order_id":"o-9"}}`
	for _, c := range []struct{ name, body, key, noKey string }{
		{"bare", `{"order_id":"o-1"}`, "cobro:o-1", ""},
		{"sns inner message", sns(`{"order_id":"o-2"}`), "cobro:o-2", ""},
		{"eventbridge detail", eb, "cobro:o-9", ""},
		{"missing field is a blank, not a key", `{"total":3}`, "", "what the expression gives a message without its fields"},
		{"number is not a string", `{"order_id":7}`, "", "cannot add"},
		{"not JSON", `hello`, "", "expected an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := k.Of(&sqsjson.Message{MessageId: "m", Body: c.body})
			if c.noKey == "" {
				if err != nil || got != c.key {
					t.Fatalf("key %q, %v; want %q", got, err, c.key)
				}
				return
			}
			var nk *NoKey
			if err == nil || !strings.Contains(err.Error(), c.noKey) || fmt.Sprintf("%T", err) != fmt.Sprintf("%T", nk) {
				t.Fatalf("key %q, %v; want no key: %s", got, err, c.noKey)
			}
		})
	}
	n, _ := Compile(`.order_id`, detect)
	if _, err := n.Of(&sqsjson.Message{Body: `{"order_id":7}`}); err == nil || !strings.Contains(err.Error(), "a number, not a string (wrap it in tostring)") {
		t.Fatalf("number: %v", err)
	}
	if _, err := n.Of(&sqsjson.Message{Body: `{}`}); err == nil || !strings.Contains(err.Error(), "null") {
		t.Fatalf("null: %v", err)
	}
	a, _ := Compile(`$attributes.IdempotencyKey.StringValue`, detect)
	v := "k-1"
	if got, err := a.Of(&sqsjson.Message{Body: `{}`, MessageAttributes: map[string]sqsjson.MessageAttributeValue{"IdempotencyKey": {DataType: "String", StringValue: &v}}}); err != nil || got != "k-1" {
		t.Fatalf("attribute key %q, %v", got, err)
	}
}

func TestCompileRefusesBadExpressions(t *testing.T) {
	for expr, want := range map[string]string{
		"":                             "the expression is empty",
		`"cobro:" + .[`:                "fix the expression (jq syntax)",
		`nosuch(.a)`:                   "fix the expression",
		strings.Repeat("a", MaxExpr+1): "over 4096",
	} {
		if _, err := Compile(expr, detect); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile(%.20q) = %v; want %q", expr, err, want)
		}
	}
}

// The tally counts every key exactly and keeps the most-copied ones with
// examples, sanitised.
func TestTally(t *testing.T) {
	k, _ := Compile(`"cobro:" + .order_id`, detect)
	tl := NewTally(k)
	id := 0
	add := func(body string) {
		id++
		tl.Add(&sqsjson.Message{MessageId: fmt.Sprintf("m-%d", id), Body: body})
	}
	for i := 0; i < 5; i++ {
		add(`{"order_id":"o-1"}`)
	}
	add(`{"order_id":"o-2\u001b[31m"}`)
	add(`{"order_id":"o-2\u001b[31m"}`)
	add(`{"order_id":"o-3"}`)
	add(`{"total":1}`)
	s := tl.Summary(10)
	if s.Messages != 9 || s.Keys != 3 || s.Duplicated != 2 || s.Duplicates != 5 || s.NoKey != 1 || len(s.NoKeyReasons) != 1 {
		t.Fatalf("summary %+v", s)
	}
	if len(s.Top) != 2 || s.Top[0].Key != "cobro:o-1" || s.Top[0].Messages != 5 || len(s.Top[0].MessageIDs) != MaxExamples || strings.Contains(s.Top[1].Key, "\x1b") {
		t.Fatalf("top %+v", s.Top)
	}
}

// The mover decodes each payload once for --key and --transform
// (envelope.Decode) and hands it to OfDecoded: the key is Of's, no key
// for the same reason, and $attributes read only by an expression that
// names it.
func TestOfDecodedIsOf(t *testing.T) {
	tenant := "acme"
	attrs := map[string]sqsjson.MessageAttributeValue{"tenant": {DataType: "String", StringValue: &tenant}}
	msgs := []sqsjson.Message{
		{MessageId: "raw", Body: `{"order_id":"o-1","n":12345678901234567890}`, MessageAttributes: attrs},
		{MessageId: "sns", Body: sns(`{"order_id":"o-2"}`), MessageAttributes: attrs},
		{MessageId: "text", Body: `order o-3`},
		{MessageId: "none", Body: `{"total":1}`},
		{MessageId: "bad", Body: sns(`{"order_id":`)},
	}
	for _, expr := range []string{`"cobro:" + .order_id`, `.order_id + ":" + $attributes.tenant.StringValue`, `.n | tostring`, `.`} {
		k, err := Compile(expr, detect)
		if err != nil {
			t.Fatal(err)
		}
		for i := range msgs {
			want, wantErr := k.Of(&msgs[i])
			d := envelope.Decode(&msgs[i])
			got, gotErr := k.OfDecoded(&msgs[i], d.Value, d.Err)
			if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s on %s: OfDecoded %q, %v; Of %q, %v", expr, msgs[i].MessageId, got, gotErr, want, wantErr)
			}
		}
	}
}
