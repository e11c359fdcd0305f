package sqsjson

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func str(s string) *string { return &s }

func TestReaderDetectsBothFormats(t *testing.T) {
	want := []Message{
		{MessageId: "a", Body: `{"version":2}`, Attributes: map[string]string{"SentTimestamp": "1700000000000"},
			MessageAttributes: map[string]MessageAttributeValue{"ErrorCode": {DataType: "String", StringValue: str("E1")}}},
		{MessageId: "b", Body: "not json", Attributes: map[string]string{"ApproximateReceiveCount": "5"}},
	}
	var lines bytes.Buffer
	w := NewWriter(&lines)
	for i := range want {
		if err := w.Write(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	cliDoc := `{
    "Messages": [
        {"MessageId": "a", "Body": "{\"version\":2}", "Attributes": {"SentTimestamp": "1700000000000"},
         "MessageAttributes": {"ErrorCode": {"DataType": "String", "StringValue": "E1"}}},
        {"MessageId": "b", "Body": "not json", "Attributes": {"ApproximateReceiveCount": "5"}}
    ]
}`
	for name, in := range map[string]string{"json lines": lines.String(), "receive-message document": cliDoc} {
		got, err := ReadAll(strings.NewReader(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", name, diff)
		}
	}
}

func TestReaderNamesTheBadLine(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		line int
	}{
		"not json":     {"{\"MessageId\":\"a\",\"Body\":\"x\"}\n\nnot json\n", 3},
		"no MessageId": {"{\"MessageId\":\"a\",\"Body\":\"x\"}\n{\"Body\":\"y\"}\n", 2},
		"document":     {"{\"Messages\":[{\"MessageId\":\"a\"},{\"Body\":1}]}", 2},
	} {
		_, err := ReadAll(strings.NewReader(tc.in))
		var le *LineError
		if !errors.As(err, &le) || le.Line != tc.line {
			t.Errorf("%s: err = %v; want a LineError at line %d", name, err, tc.line)
		}
	}
}

func TestAttributeAccessors(t *testing.T) {
	m := Message{Attributes: map[string]string{"SentTimestamp": "1700000000123", "ApproximateReceiveCount": "7"}}
	if ts, ok := m.SentTime(); !ok || ts.UnixMilli() != 1700000000123 {
		t.Errorf("SentTime = %v, %v", ts, ok)
	}
	if n, ok := m.ReceiveCount(); !ok || n != 7 {
		t.Errorf("ReceiveCount = %d, %v", n, ok)
	}
	if _, ok := (&Message{}).SentTime(); ok {
		t.Error("SentTime of a message without attributes is ok")
	}
}

// WriteLines writes what ReadAll reads back, one line a message, HTML
// characters as they are.
func TestWriteLinesReadsBack(t *testing.T) {
	msgs := []Message{{MessageId: "m-1", Body: `{"a":"<b>&"}`}, {MessageId: "m-2", Body: "two"}}
	var b bytes.Buffer
	if err := WriteLines(msgs)(&b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 2 || strings.Contains(b.String(), `\u003c`) {
		t.Fatalf("%d lines, escaped HTML: %q", n, b.String())
	}
	got, err := ReadAll(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}
