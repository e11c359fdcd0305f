package selection

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// now is the clock the table parses against.
var now = time.Date(2025, 3, 2, 12, 0, 0, 0, time.UTC)

// sentAt is a message sent at t, its Body a JSON object with version v.
func sentAt(t time.Time, v int) sqsjson.Message {
	return sqsjson.Message{MessageId: "m", Body: `{"version":` + strconv.Itoa(v) + `}`,
		Attributes: map[string]string{"SentTimestamp": strconv.FormatInt(t.UnixMilli(), 10)}}
}

// TestSelection is the selection's table: the flags' values as typed, the
// error Parse gives (one line naming the fix), the plan's text, and which
// of four messages the compiled predicate picks — sent 2 days, 5 hours and
// 30 minutes before now, and one with version 1 sent just now.
func TestSelection(t *testing.T) {
	msgs := []sqsjson.Message{sentAt(now.Add(-48*time.Hour), 2), sentAt(now.Add(-5*time.Hour), 2), sentAt(now.Add(-30*time.Minute), 2), sentAt(now, 1)}
	tests := []struct {
		name    string
		sel     Selection
		wantErr string
		text    string
		picks   []bool
	}{
		{name: "empty picks all", sel: Selection{}, text: "", picks: []bool{true, true, true, true}},
		{name: "max bounds how many, not which", sel: Selection{Max: 5}, text: "", picks: []bool{true, true, true, true}},
		{name: "filter", sel: Selection{Filter: ".Body.version == 2"}, text: "--filter .Body.version == 2", picks: []bool{true, true, true, false}},
		{name: "sent after", sel: Selection{SentAfter: "2025-03-02T06:00:00Z"}, text: "--sent-after 2025-03-02T06:00:00Z", picks: []bool{false, true, true, true}},
		{name: "sent between", sel: Selection{SentAfter: "2025-03-01T00:00:00Z", SentBefore: "2025-03-02T11:00:00Z"}, text: "--sent-after 2025-03-01T00:00:00Z, --sent-before 2025-03-02T11:00:00Z", picks: []bool{false, true, false, false}},
		{name: "max age", sel: Selection{MaxAge: "6h"}, text: "--max-age 6h", picks: []bool{false, true, true, true}},
		{name: "max age and a filter", sel: Selection{MaxAge: "1h", Filter: ".Body.version == 2"}, text: "--filter .Body.version == 2, --max-age 1h", picks: []bool{false, false, true, false}},
		{name: "max age not a duration", sel: Selection{MaxAge: "6 hours"}, wantErr: `--max-age "6 hours": use a duration above 0, e.g. 6h or 90m`},
		{name: "max age zero", sel: Selection{MaxAge: "0s"}, wantErr: `--max-age "0s": use a duration above 0, e.g. 6h or 90m`},
		{name: "max age and sent after", sel: Selection{MaxAge: "6h", SentAfter: "2025-03-02T06:00:00Z"}, wantErr: "--max-age and --sent-after both bound how old a message may be: drop one"},
		{name: "bad time", sel: Selection{SentAfter: "yesterday"}, wantErr: `--sent-after "yesterday": use RFC 3339, e.g. 2025-03-02T03:00:00Z`},
		{name: "bounds out of order", sel: Selection{SentAfter: "2025-03-02T04:00:00Z", SentBefore: "2025-03-02T03:00:00Z"}, wantErr: "--sent-after must be before --sent-before"},
		{name: "negative max", sel: Selection{Max: -1}, wantErr: "--max must be >= 0, got -1"},
		{name: "bad filter", sel: Selection{Filter: ".Body.version =="}, wantErr: `--filter ".Body.version ==": unexpected EOF`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.sel
			err := s.Parse(now)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Parse: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Text(); got != tt.text {
				t.Errorf("Text %q, want %q", got, tt.text)
			}
			if s.Empty() != (tt.text == "") {
				t.Errorf("Empty %v with text %q", s.Empty(), tt.text)
			}
			p, err := s.Compile(nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.All() != s.Empty() || (p.Func() == nil) != s.Empty() {
				t.Errorf("All %v, Func nil %v; want both %v", p.All(), p.Func() == nil, s.Empty())
			}
			for i := range msgs {
				if ok, err := p.Match(&msgs[i]); err != nil || ok != tt.picks[i] {
					t.Errorf("message %d: picked %v (%v), want %v", i, ok, err, tt.picks[i])
				}
			}
		})
	}
}

// The zero predicate picks every message: nothing to forget.
func TestZeroPredicatePicksAll(t *testing.T) {
	var p Predicate
	if ok, err := p.Match(&sqsjson.Message{}); !ok || err != nil || !p.All() {
		t.Fatalf("zero predicate: %v %v all %v", ok, err, p.All())
	}
}

// A group needs the incident's groups; the time bounds need Parse.
func TestCompileRefusesWhatItCannotDecide(t *testing.T) {
	if _, err := (Selection{Group: "g1"}).Compile(nil); err == nil {
		t.Fatal("--group compiled without its groups: it would pick nothing, or everything")
	}
	if _, err := (Selection{SentAfter: "2025-03-02T06:00:00Z"}).Compile(nil); err == nil {
		t.Fatal("a time bound compiled unparsed: it would bound nothing")
	}
	p, err := (Selection{Group: "g1"}).Compile(func(m *sqsjson.Message) string { return m.MessageId })
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"g1": true, "g2": false} {
		if ok, _ := p.Match(&sqsjson.Message{MessageId: id}); ok != want {
			t.Errorf("group of %s: %v, want %v", id, ok, want)
		}
	}
}

// The JSON keys are the redrive event's since the first incidents, so an
// old incident reads into the same type.
func TestSelectionJSONKeys(t *testing.T) {
	b, err := json.Marshal(Selection{Max: 3, Filter: "f", SentAfter: "a", SentBefore: "b", Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"max":3,"filter":"f","sent_after":"a","sent_before":"b","group":"g"}`; string(b) != want {
		t.Fatalf("JSON %s, want %s", b, want)
	}
	var old Selection
	if err := json.Unmarshal([]byte(`{"to":"orders","rate":"10","max":0,"filter":"","sent_after":"2025-03-02T03:00:00Z","sent_before":"","group":"g1","canary":10}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.SentAfter != "2025-03-02T03:00:00Z" || old.Group != "g1" {
		t.Fatalf("old inputs read as %+v", old)
	}
}

// The report's phrases, in its order.
func TestParts(t *testing.T) {
	got := Selection{Max: 4, Filter: ".x", SentBefore: "2025-03-02T03:00:00Z", MaxAge: "6h", Group: "g2"}.Parts()
	want := []Part{{Words: "group %s", Values: []string{"g2"}}, {Words: "filter %s", Values: []string{".x"}, Code: true},
		{Words: "sent between %s and %s", Values: []string{"", "2025-03-02T03:00:00Z"}}, {Words: "sent within %s before the move", Values: []string{"6h"}},
		{Words: "at most %s", Values: []string{"4"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("parts (-want +got):\n%s", diff)
	}
}
