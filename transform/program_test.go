package transform

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/sqsjson"
)

// A program reads $message or $attributes only when it names them: a
// redrive asks SQS for the system attributes only for one that may read
// them (ReadsAttributes), and Apply builds neither value for one that
// cannot — what a program that names them sees is unchanged.
func TestProgramReadsOnlyWhatItNames(t *testing.T) {
	ctx := context.Background()
	m := sqsjson.Message{MessageId: "m-1", Body: order2,
		Attributes:        map[string]string{"SentTimestamp": "1764547200000", "AWSTraceHeader": "Root=1-5759e988-bd862e3fe1be46a994272793"},
		MessageAttributes: map[string]sqsjson.MessageAttributeValue{"tenant": sattr("acme")}}
	for _, c := range []struct {
		program  string
		reads    bool
		wantPath string // a field of the repaired payload…
		want     string // …and its value
	}{
		{`.version = 1`, false, "version", "1"},
		{`.note = "$message"`, false, "note", `"$message"`},
		{`.tenant = $attributes.tenant.StringValue`, false, "tenant", `"acme"`},
		{`.version = 1 | set_attributes(.schema = {DataType: "String", StringValue: "1"})`, false, "version", "1"},
		{`.trace = $message.Attributes.AWSTraceHeader`, true, "trace", `"Root=1-5759e988-bd862e3fe1be46a994272793"`},
		{`.kind = $message.Envelope.kind`, true, "kind", `"raw"`},
		{`def sent: $message.Attributes.SentTimestamp; .version = 1`, true, "version", "1"},
	} {
		p := compile(t, c.program)
		if got := p.ReadsAttributes(); got != c.reads {
			t.Errorf("%s: ReadsAttributes %v, want %v", c.program, got, c.reads)
		}
		r := p.Apply(ctx, &m, Limits{})
		if r.Outcome != Changed {
			t.Fatalf("%s: %s %q", c.program, r.Outcome, r.Reason)
		}
		if got := field(t, r.After, c.wantPath); got != c.want {
			t.Errorf("%s: .%s is %s, want %s", c.program, c.wantPath, got, c.want)
		}
	}
}

// field is the JSON of payload's top-level member name.
func field(t *testing.T, payload []byte, name string) string {
	t.Helper()
	var v map[string]json.RawMessage
	if err := json.Unmarshal(payload, &v); err != nil {
		t.Fatal(err)
	}
	return string(v[name])
}

// The redrive mover reads each message once for --key and --transform
// and hands the transform what it read (Step.Apply with what it read): the outcome
// is Apply's, and Apply leaves the shared value as it was, so that the
// --key, which read it first, and the program see the same payload.
func TestApplyDecodedIsApply(t *testing.T) {
	ctx := context.Background()
	sns := `{"Type":"Notification","MessageId":"6f5c3b7e","TopicArn":"arn:aws:sns:us-east-1:123456789012:orders","Message":"{\"order_id\":\"o-1\",\"version\":2}",` +
		`"Timestamp":"2024-03-10T22:04:00.000Z","SignatureVersion":"1","Signature":"EXAMPLE","SigningCertURL":"https://sns.us-east-1.amazonaws.com/x.pem","UnsubscribeURL":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"}`
	msgs := []sqsjson.Message{{MessageId: "raw", Body: order2}, {MessageId: "sns", Body: sns}, {MessageId: "text", Body: "order 7"}, {MessageId: "bad", Body: `{"order_id":`}}
	for _, src := range []string{`.version = 1`, `.`, `if type == "string" then . + "!" else .items = [] end`, `error("no")`} {
		p := compile(t, src)
		for i := range msgs {
			want := p.Apply(ctx, &msgs[i], Limits{})
			d := envelope.Decode(&msgs[i])
			before, _ := json.Marshal(d.Value)
			got := p.ApplyDecoded(ctx, &msgs[i], d, Limits{})
			if after, _ := json.Marshal(d.Value); string(after) != string(before) {
				t.Errorf("%s on %s: the program changed the value it was given: %s", src, msgs[i].MessageId, after)
			}
			if got.Outcome != want.Outcome || got.Reason != want.Reason || string(got.After) != string(want.After) || string(got.Before) != string(want.Before) ||
				(got.Message == nil) != (want.Message == nil) || got.Message != nil && got.Message.Body != want.Message.Body || len(got.Dropped) != len(want.Dropped) {
				t.Errorf("%s on %s: ApplyDecoded %+v, Apply %+v", src, msgs[i].MessageId, got, want)
			}
		}
	}
	// Step.Apply: the same copies with what the caller read as without.
	ds := make([]envelope.Decoded, len(msgs))
	for i := range msgs {
		ds[i] = envelope.Decode(&msgs[i])
	}
	a, _ := NewStep(compile(t, `.version = 1`), Limits{}, nil).Apply(ctx, msgs, nil)
	b, _ := NewStep(compile(t, `.version = 1`), Limits{}, nil).Apply(ctx, msgs, ds)
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("Apply sends %d, with what the caller read %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Body != b[i].Body {
			t.Errorf("copy %d: %s, want %s", i, b[i].Body, a[i].Body)
		}
	}
}

// The payload hash the send journals for each message the step let go
// (Step.PayloadSHA256) is envelope.PayloadSHA256 of what is sent: the
// repaired copy's, its re-wrap read back, or the original's when only the
// attributes changed or nothing did. It is told once, for that body only,
// and Forget drops it.
func TestStepKnowsTheSentPayloadHash(t *testing.T) {
	ctx := context.Background()
	sns := `{"Type":"Notification","MessageId":"6f5c3b7e","TopicArn":"arn:aws:sns:us-east-1:123456789012:orders","Message":"{\"order_id\":\"o-1\",\"version\":2}",` +
		`"Timestamp":"2024-03-10T22:04:00.000Z","SignatureVersion":"1","Signature":"EXAMPLE","SigningCertURL":"https://sns.us-east-1.amazonaws.com/x.pem","UnsubscribeURL":"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"}`
	msgs := []sqsjson.Message{{MessageId: "raw", Body: "  " + order2}, {MessageId: "sns", Body: sns}, {MessageId: "text", Body: "order 7"}, {MessageId: "v1", Body: `{"version": 1}`}}
	for _, src := range []string{`if type == "object" then .version = 1 else . + "!" end`, `set_attributes(.note = {DataType: "String", StringValue: "x"})`, `.`} {
		s := NewStep(compile(t, src), Limits{}, discard{})
		ds := make([]envelope.Decoded, len(msgs))
		for i := range msgs {
			ds[i] = envelope.Decode(&msgs[i])
		}
		send, failed := s.Apply(ctx, msgs, ds)
		if len(failed) > 0 || len(send) != len(msgs) {
			t.Fatalf("%s: sends %d, failed %v", src, len(send), failed)
		}
		if err := s.Keep(send); err != nil {
			t.Fatal(err)
		}
		for i := range send {
			want := envelope.PayloadSHA256(&send[i])
			if got, ok := s.PayloadSHA256(&send[i]); !ok || got != want {
				t.Errorf("%s on %s: %q %v, want %q", src, send[i].MessageId, got, ok, want)
			}
			if _, ok := s.PayloadSHA256(&send[i]); ok {
				t.Errorf("%s on %s: told twice", src, send[i].MessageId)
			}
		}
	}
	s := NewStep(compile(t, `.version = 1`), Limits{}, discard{})
	ds := []envelope.Decoded{envelope.Decode(&msgs[0]), envelope.Decode(&msgs[1])}
	send, _ := s.Apply(ctx, msgs[:2], ds)
	if err := s.Keep(send); err != nil {
		t.Fatal(err)
	}
	other := send[0]
	other.Body = order2
	if _, ok := s.PayloadSHA256(&other); ok {
		t.Error("told the hash of another body")
	}
	s.Forget(send[1:])
	if _, ok := s.PayloadSHA256(&send[1]); ok {
		t.Error("told the hash of a message forgotten")
	}
}

// discard keeps no originals.
type discard struct{}

func (discard) Append([]sqsjson.Message) error { return nil }
