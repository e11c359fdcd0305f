package redrive

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/transform"
)

// An incident's first --transform keeps its originals compressed; one
// whose earlier run wrote the uncompressed file keeps appending to it, so
// that the incident holds one originals file and the undo the plan printed
// before still names it. A symbolic link by the old name is not followed.
func TestOriginalsPathKeepsAnOldIncidentsFile(t *testing.T) {
	prog, err := transform.Compile(".version = 1", "--transform")
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Transform: prog}
	ws, err := incident.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.OriginalsPath(ws), ws.Path(incident.OriginalsGzFile); got != want {
		t.Fatalf("a new incident: %s, want %s", got, want)
	}
	old := ws.Path(incident.OriginalsFile)
	if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), old); err != nil {
		t.Fatal(err)
	}
	if got := p.OriginalsPath(ws); got != ws.Path(incident.OriginalsGzFile) {
		t.Fatalf("beside a symbolic link by the old name: %s", got)
	}
	os.Remove(old)
	if err := os.WriteFile(old, []byte(`{"MessageId":"a","Body":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := p.OriginalsPath(ws); got != old {
		t.Fatalf("an incident with the uncompressed file: %s, want %s", got, old)
	}
	if got := (&Plan{}).OriginalsPath(ws); got != "" {
		t.Fatalf("without --transform: %q", got)
	}
}
