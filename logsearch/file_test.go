package logsearch

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	idA = "2b1f0a4e-5d7c-4c1b-9a51-7f0e2d3c4b5a"
	idB = "9d8e7f6a-1111-4222-8333-444455556666"
	idC = "00000000-0000-4000-8000-000000000000"
)

func targets(ids ...string) []Wanted {
	w := Range{From: time.Date(2024, 3, 10, 21, 0, 0, 0, time.UTC), To: time.Date(2024, 3, 10, 23, 0, 0, 0, time.UTC)}
	ts := make([]Wanted, len(ids))
	for i, id := range ids {
		ts[i] = Wanted{MessageID: id, Range: w}
	}
	return ts
}

func searchFixture(t *testing.T, name string, after int, ids ...string) Result {
	t.Helper()
	f, err := os.Open("../testdata/logs/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := SearchFile(f, name, targets(ids...), after)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSearchFileJSONLines(t *testing.T) {
	rep := searchFixture(t, "export.jsonl", 20, idA, idB, idC)
	if rep.Searched != 3 || rep.Found != 2 || rep.Method != MethodFile {
		t.Fatalf("searched %d found %d method %s, want 3, 2, file", rep.Searched, rep.Found, rep.Method)
	}
	a := rep.Messages[0]
	want := Record{
		MessageID: idA, Found: true, LogStream: "2024/03/10/[$LATEST]a1",
		Timestamp: "2024-03-10T22:04:00.001Z",
		Lines: []string{
			"INFO processing message " + idA,
			"ERROR order o-17 rejected",
			"Traceback (most recent call last):",
			`  File "/var/task/handler.py", line 31, in handle`,
			`    raise UnsupportedVersionError(f"version {v}")`,
			"UnsupportedVersionError: version 2",
		},
		Exception: "UnsupportedVersionError: version 2",
		Signature: "UnsupportedVersionError: version <n>",
		Matches:   1, Range: a.Range,
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("record of %s (-want +got):\n%s", idA, diff)
	}
	b := rep.Messages[1]
	if !b.Found || b.LogStream != "2024/03/10/[$LATEST]b2" || b.Exception != "" || len(b.Lines) != 2 {
		t.Errorf("record of %s: %+v; want its own stream's 2 lines and no exception", idB, b)
	}
	if c := rep.Messages[2]; c.Found || len(c.Lines) != 0 || c.Signature != "" {
		t.Errorf("record of %s: %+v; want not found", idC, c)
	}
	if diff := cmp.Diff([]string{idC}, rep.NotFound()); diff != "" {
		t.Errorf("NotFound (-want +got):\n%s", diff)
	}
}

func TestSearchFilePlainText(t *testing.T) {
	rep := searchFixture(t, "plain.log", 10, idA)
	a := rep.Messages[0]
	if !a.Found || a.Matches != 2 {
		t.Fatalf("found %v matches %d, want true 2", a.Found, a.Matches)
	}
	if a.Exception != "SkuNotFound: SKU-9123" || a.Signature != "SkuNotFound: SKU-<n>" {
		t.Errorf("exception %q signature %q", a.Exception, a.Signature)
	}
	if a.Timestamp != "" {
		t.Errorf("timestamp %q from a plain line, want none", a.Timestamp)
	}
	if !strings.Contains(a.Lines[0], "failed to process") {
		t.Errorf("story starts %q: want the latest line naming the message", a.Lines[0])
	}
}

func TestSearchFileContextZero(t *testing.T) {
	rep := searchFixture(t, "export.jsonl", 0, idA)
	if got := rep.Messages[0].Lines; len(got) != 1 || rep.Messages[0].Exception != "" {
		t.Errorf("lines %q exception %q with no context, want the matching line alone", got, rep.Messages[0].Exception)
	}
}

func TestParseFileTime(t *testing.T) {
	want := time.Date(2024, 3, 10, 22, 4, 0, 123e6, time.UTC)
	for _, raw := range []string{`1710108240123`, `1710108240.123`, `"2024-03-10T22:04:00.123Z"`, `"2024-03-10 22:04:00.123"`} {
		if got := parseFileTime([]byte(raw)); !got.Equal(want) {
			t.Errorf("parseFileTime(%s) = %v, want %v", raw, got, want)
		}
	}
	if got := parseFileTime([]byte(`"yesterday"`)); !got.IsZero() {
		t.Errorf("parseFileTime(yesterday) = %v, want zero", got)
	}
}
