package logsearch

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/sqsjson"
)

func msg(id string, sent, recv int64) sqsjson.Message {
	m := sqsjson.Message{MessageId: id, Attributes: map[string]string{}}
	if sent > 0 {
		m.Attributes[sqsjson.AttrSentTimestamp] = strconv.FormatInt(sent, 10)
	}
	if recv > 0 {
		m.Attributes[sqsjson.AttrApproximateFirstReceiveTimestamp] = strconv.FormatInt(recv, 10)
	}
	return m
}

func TestRangeOf(t *testing.T) {
	const sent, recv = 1710108240000, 1710108300000
	m := 30 * time.Minute
	tests := []struct {
		name   string
		msg    sqsjson.Message
		from   int64
		to     int64
		wantOK bool
	}{
		{"both", msg("a", sent, recv), sent, recv, true},
		{"sent only", msg("a", sent, 0), sent, sent, true},
		{"receive only", msg("a", 0, recv), recv, recv, true},
		{"receive before sent", msg("a", recv, sent), sent, recv, true},
		{"neither", msg("a", 0, 0), 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := RangeOf(&tt.msg, m)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v", ok)
			}
			if !ok {
				return
			}
			want := Range{From: time.UnixMilli(tt.from).UTC().Add(-m), To: time.UnixMilli(tt.to).UTC().Add(m)}
			if !w.From.Equal(want.From) || !w.To.Equal(want.To) {
				t.Errorf("range %v, want %v", w, want)
			}
		})
	}
}

func TestPick(t *testing.T) {
	s := []sqsjson.Message{msg("a1", 1, 0), msg("a2", 1, 0), msg("a3", 1, 0), msg("b1", 1, 0), msg("c1", 1, 0)}
	ids := func(ms []sqsjson.Message) []string {
		out := []string{}
		for _, m := range ms {
			out = append(out, m.MessageId)
		}
		return out
	}
	tests := []struct {
		name   string
		groups [][]string
		n      int
		want   []string
	}{
		{"no groups: sample order", nil, 3, []string{"a1", "a2", "a3"}},
		{"one per group first", [][]string{{"a1", "a2", "a3"}, {"b1"}, {"c1"}}, 3, []string{"a1", "b1", "c1"}},
		{"then the rest", [][]string{{"b1"}, {"c1"}}, 4, []string{"b1", "c1", "a1", "a2"}},
		{"unsampled ids skipped", [][]string{{"zz", "c1"}, {"yy"}}, 2, []string{"c1", "a1"}},
		{"more than there are", nil, 10, []string{"a1", "a2", "a3", "b1", "c1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ids(Pick(s, tt.groups, tt.n))); diff != "" {
				t.Errorf("Pick (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"5e0c2a44-8d1b-4f0e-9c3a-1b2c3d4e5f60": true, "abc_1": true,
		"": false, `a" OR "b`: false, "a/b": false, "x|y": false,
	} {
		if ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, !want, want)
		}
	}
}

func TestTargets(t *testing.T) {
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	s := []sqsjson.Message{msg("a", now.Add(-time.Hour).UnixMilli(), 0), msg("b", now.Add(-2*time.Hour).UnixMilli(), 0)}
	ts, untimed := Targets(s, []string{"b", "zz"}, nil, 3, time.Minute, 6*time.Hour, now)
	want := []Wanted{
		{MessageID: "b", Range: Range{From: now.Add(-2*time.Hour - time.Minute), To: now.Add(-2*time.Hour + time.Minute)}},
		{MessageID: "zz", Range: Range{From: now.Add(-6 * time.Hour), To: now}},
	}
	if diff := cmp.Diff(want, ts); diff != "" {
		t.Errorf("Targets with ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"zz"}, untimed); diff != "" {
		t.Errorf("untimed (-want +got):\n%s", diff)
	}
	ts, untimed = Targets(s, nil, [][]string{{"b"}}, 1, time.Minute, time.Hour, now)
	if len(ts) != 1 || ts[0].MessageID != "b" || untimed != nil {
		t.Errorf("Targets picked %v, untimed %v; want b alone", ts, untimed)
	}
}
