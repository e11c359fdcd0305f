package cmd

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/internal/fifolock"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

// TestRedriveFIFOHoldsBackAGroupAfterAFailure: on a FIFO DLQ, a selected
// message the program fails on stays in the DLQ, and so do the later
// messages of its group — sent, they would reach the consumer ahead of
// it, out of the order a FIFO queue promises (issue 48). They are counted
// (held_back) and said; the other groups move whole, in order. A message the
// operator did not select (--filter) holds nothing back: its group's
// later messages move, as docs/redrive.md says of a skip.
//
// Every group is checked in its order, beside the other tests. Its one
// failure under make test (g1 as [2 3 4 0]) and what once loosened it
// (g1 held back whole, g0 as 2 3 4 0 1) were moto's: the plan's preview
// receives g1's 0-2 and releases them, moto could leave a released
// message counted in flight, and the mover's first receive then began
// g1 at it, before any sign of seq 1's failure (fixed in
// internal/localaws/moto_server.py: TestReleasedFIFOMessagesComeBackFirst).
// On the old server this test failed 8 runs of 20; now 0 of 20.
func TestRedriveFIFOHoldsBackAGroupAfterAFailure(t *testing.T) {
	t.Parallel()
	lock := httptest.NewServer(fifolock.New(localaws.Endpoint(t)))
	defer lock.Close()
	s := localaws.NewSeeder(localaws.Config(t))
	ctx := context.Background()
	name := localaws.UniqueName("fifohold")
	fifo := map[string]string{"FifoQueue": "true"}
	src, err := s.CreateQueue(ctx, name+".fifo", fifo)
	if err != nil {
		t.Fatal(err)
	}
	dlq, err := s.CreateQueue(ctx, name+"-dlq.fifo", fifo)
	if err != nil {
		t.Fatal(err)
	}
	const groups, per = 3, 5
	sendFIFO(t, s, dlq, groups, per)
	var stdout, stderr strings.Builder
	d := cmdutil.NewDeps(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, nil)
	code := run(ctx, d, []string{"redrive", "--queue", name + "-dlq.fifo", "--to", name + ".fifo", "--rate", "max", "--canary", "0", "--yes",
		"--transform", `if .g == "g1" and .seq == 1 then error("no repair for this one") else .v = 1 end`,
		"--filter", `.Body.g != "g2" or .Body.seq != 1`,
		"--endpoint-url", lock.URL, "--incident", t.TempDir(), "--output", "json"})
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != cmdutil.ExitCheckFailed {
		t.Errorf("exit %d, want %d (a message left in the DLQ)", code, cmdutil.ExitCheckFailed)
	}
	got, err := s.Drain(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	order := map[string][]int{}
	for _, m := range got {
		var b struct {
			G   string `json:"g"`
			Seq int    `json:"seq"`
		}
		if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &b); err != nil {
			t.Fatal(err)
		}
		order[b.G] = append(order[b.G], b.Seq)
	}
	// g1 stops at its failure: its seq 0 goes ahead of it, its 2-4 are
	// held back (3 counted). g2's seq 1, not selected, holds nothing back.
	for g, want := range map[string][]int{"g0": {0, 1, 2, 3, 4}, "g1": {0}, "g2": {0, 2, 3, 4}} {
		if !slices.Equal(order[g], want) {
			t.Errorf("group %s arrived as %v, want %v", g, order[g], want)
		}
	}
	if !strings.Contains(stdout.String(), `"held_back":3`) {
		t.Error(`the summary does not count "held_back":3`)
	}
	if !strings.Contains(stderr.String(), "3 messages held back in the DLQ: an earlier message of their FIFO group failed") {
		t.Error("the held-back messages are not said")
	}
	left, err := s.Drain(ctx, dlq)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 5 {
		t.Errorf("the DLQ holds %d, want 5 (g1's 1-4, g2's 1)", len(left))
	}
}
