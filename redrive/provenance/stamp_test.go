package provenance

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mfdlq/mfdlq/sqsjson"
)

func attrs(n int) map[string]sqsjson.MessageAttributeValue {
	out := map[string]sqsjson.MessageAttributeValue{}
	for i := range n {
		out[string(rune('a'+i))] = sqsjson.MessageAttributeValue{DataType: "String", StringValue: aws.String("v")}
	}
	return out
}

// Fits counts as SQS does: the stamp replaces an earlier one, ten others
// leave no room, and the size is body plus every name, type and value.
func TestFits(t *testing.T) {
	v := New("/x/inc", "r", 1).Value("id")
	stampSize := len(Attribute) + len("String") + len(v)
	withOld := attrs(9)
	withOld[Attribute] = sqsjson.MessageAttributeValue{DataType: "String", StringValue: aws.String("old")}
	for _, tt := range []struct {
		name  string
		attrs map[string]sqsjson.MessageAttributeValue
		body  int
		max   int
		want  Result
	}{
		{"none", nil, 10, 0, Stamped},
		{"nine", attrs(9), 10, 0, Stamped},
		{"ten", attrs(10), 10, 0, Full},
		{"nine and an old stamp", withOld, 10, 0, Stamped},
		{"exactly at the limit", nil, 1000 - stampSize, 1000, Stamped},
		{"one byte over", nil, 1001 - stampSize, 1000, TooBig},
		{"attributes count", attrs(1), 1000 - stampSize - len("a") - len("String") - len("v"), 1000, Stamped},
		{"attributes count, over", attrs(1), 1001 - stampSize - len("a") - len("String") - len("v"), 1000, TooBig},
		{"default 256 KiB", nil, DefaultMaxBytes - stampSize + 1, 0, TooBig},
	} {
		if got := Fits(tt.attrs, tt.body, v, tt.max); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Set replaces, never doubles, and leaves the received map alone.
func TestSet(t *testing.T) {
	in := attrs(2)
	in[Attribute] = sqsjson.MessageAttributeValue{DataType: "String", StringValue: aws.String("old")}
	out := Set(in, "new")
	if len(out) != 3 || aws.ToString(out[Attribute].StringValue) != "new" || out[Attribute].DataType != "String" {
		t.Errorf("set: %v", out)
	}
	if aws.ToString(in[Attribute].StringValue) != "old" {
		t.Error("Set changed the message's own map")
	}
	if Of(&sqsjson.Message{MessageAttributes: out}) != "new" || Of(&sqsjson.Message{}) != "" {
		t.Error("Of")
	}
}

// The value names incident, run, MessageId and attempt in plain ASCII,
// whatever the directory's name or a file's MessageId holds.
func TestValue(t *testing.T) {
	s := New("/home/ana/incidents/orders-dlq-20261202T0400Z", "20261202T040501Z-ab12cd", 0)
	if got, want := s.Value("9b2c-41"), "incident=orders-dlq-20261202T0400Z run=20261202T040501Z-ab12cd msg=9b2c-41 attempt=1"; got != want {
		t.Errorf("value %q, want %q", got, want)
	}
	s = New("/tmp/inc with spaces\n\x1b[31m", "r", 3)
	v := s.Value("id\"quoted" + strings.Repeat("x", 300))
	if strings.ContainsAny(v, "\"\n\x1b") || !strings.HasPrefix(v, "incident=inc_with_spaces___31m run=r msg=id_quoted") || !strings.HasSuffix(v, " attempt=3") || len(v) > 300 {
		t.Errorf("value %q", v)
	}
	if For("off (--no-stamp)", "/x", "r", 1) != nil || For("", "/x", "r", 1) == nil {
		t.Error("For")
	}
}

func TestOffAndPlanLines(t *testing.T) {
	for _, tt := range []struct {
		noStamp, native bool
		kind, want      string
	}{
		{false, false, "", ""},
		{false, false, "sns", ""},
		{true, false, "", "off (--no-stamp)"},
		{false, true, "", "off (--native: SQS's move task sends each message as it was)"},
		{false, false, "lambda", "off: an asynchronous Lambda invocation carries its payload only, no attributes (the journal names each RequestId)"},
		{false, false, "events", "off: an EventBridge event carries no message attributes (the journal names each EventId)"},
	} {
		if got := Off(tt.noStamp, tt.native, tt.kind); got != tt.want {
			t.Errorf("Off(%v, %v, %q) = %q, want %q", tt.noStamp, tt.native, tt.kind, got, tt.want)
		}
	}
	got := PlanLines("", "/x/inc", 2, 0, "arn:aws:iam::123456789012:user/ana")
	want := []string{
		`provenance: each message carries mfdlq-redrive="incident=inc run=<run id> msg=<its DLQ MessageId> attempt=2" in place of any earlier one; one already carrying 10 message attributes, or over 262144 bytes with it, goes without (counted); --no-stamp sends none`,
		"operator: arn:aws:iam::123456789012:user/ana (STS GetCallerIdentity), recorded in the journal, the redrive event and the report",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := PlanLines("off (--no-stamp)", "/x/inc", 1, 0, ""); got[0] != "provenance: off (--no-stamp)" || !strings.HasPrefix(got[1], "operator: unknown") {
		t.Errorf("off: %q", got)
	}
}

func TestFiguresLine(t *testing.T) {
	f := NewFigures("", "arn", Counts{Stamped: 338, Full: 2, TooBig: 1})
	if got, want := f.Line(), "provenance: 338 messages stamped mfdlq-redrive; 3 messages went without it (2 already carried 10 message attributes, 1 would have passed the size limit)"; got != want {
		t.Errorf("line %q\nwant %q", got, want)
	}
	if NewFigures("off (--no-stamp)", "arn", Counts{}).Line() != "" {
		t.Error("an unstamped move has no summary line")
	}
	var c Counts
	for _, r := range []Result{Stamped, Full, TooBig, Stamped} {
		c.Add(r)
	}
	if c.Plus(Counts{Stamped: 1}) != (Counts{Stamped: 3, Full: 1, TooBig: 1}) || c.Without() != 2 {
		t.Errorf("counts %+v", c)
	}
}
