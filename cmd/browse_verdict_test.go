package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/cmd/browse"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestBrowseLookKeepsTheIncidentsVerdict is issue 45's case through the
// view's own step: classify --expect version=1 saved "mixed: g1 poison,
// g2 transient"; opening the DLQ in browse classifies again with no
// --expect. The view gets the incident's verdict (its groups are what R
// redrives), classification.json is unchanged, and the look is said
// beside it.
func TestBrowseLookKeepsTheIncidentsVerdict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seed := localaws.NewSeeder(localaws.Config(t))
	dlq := localaws.UniqueName("bverdict-dlq")
	_, url, err := seed.CreatePair(ctx, localaws.UniqueName("bverdict"), dlq, 3)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for i := range 10 {
		v := 2
		if i >= 6 {
			v = 1
		}
		bodies = append(bodies, fmt.Sprintf(`{"order_id":"o-%d","version":%d}`, i, v))
	}
	if err := seed.Send(ctx, url, bodies, nil); err != nil {
		t.Fatal(err)
	}
	d, _, _ := testDeps(t, false)
	d.AWS = func(context.Context) (aws.Config, error) { return localaws.Config(t), nil }
	d.WireClients()
	b := browse.NewBackend(d, runDeps, nil, nil)
	// The incident's verdict, proven by --expect, as the command in a shell.
	cd, _, errOut := testDeps(t, false)
	cd.AWS = d.AWS
	cd.WireClients()
	if code := run(ctx, cd, []string{"classify", "--queue", dlq, "--expect", "version=1", "--output", "json", "--incident", d.Global.Incident}); code != cmdutil.ExitOK {
		t.Fatalf("classify --expect: exit %d\n%s", code, errOut)
	}
	path := filepath.Join(d.Global.Incident, "classification.json")
	proven, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	got, err := b.Classify(ctx, dlq)
	if err != nil {
		t.Fatal(err)
	}
	if got.Result.Verdict != classify.VerdictMixed {
		t.Errorf("the view shows %s, want the incident's mixed", got.Result.Verdict)
	}
	if g, ok := got.Result.Group("g1"); !ok || g.Verdict != classify.VerdictPoison || g.Count != 6 {
		t.Errorf("the view's g1 = %+v, want poison, 6", g)
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(after, proven) {
		t.Errorf("browse's look rewrote classification.json (%v):\n%s", err, after)
	}
	said := strings.Join(got.Lines, "\n")
	if !strings.Contains(said, "the incident's verdict stays mixed: this look had no --expect") || !strings.Contains(said, "this look, not saved: ") {
		t.Errorf("the view's classify said:\n%s\nwant the kept verdict and the look beside it", said)
	}
}
