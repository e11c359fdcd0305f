package transform

import (
	"context"
	"encoding/json"
	"testing"

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
