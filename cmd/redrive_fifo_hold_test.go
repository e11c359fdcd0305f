package cmd

import (
	"context"
	"encoding/json"
	"fmt"
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
// (held_back) and said; the other groups move whole. A message the
// operator did not select (--filter) holds nothing back: its group's
// later messages move, as docs/redrive.md says of a skip.
//
// Not parallel: under make test's full load (dozens of runs against one
// moto) it once saw g1 arrive as [2 3 4 0] — its later messages sent
// ahead of seq 0, which a FIFO consumer must never see. Whether moto
// handed the group out of order (it computes the groups in flight once
// per receive and serves receives on several threads) or the mover sent
// it so is not found yet (issue 46's closing note); run alone (3 runs,
// and 6 beside three busy CPU loops) it kept the order. It stays strict:
// an out-of-order group fails it.
func TestRedriveFIFOHoldsBackAGroupAfterAFailure(t *testing.T) {
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
	// g1 stops at its failure: never a message of g1 after seq 1. Its seq 0
	// goes ahead of the failure (4 held back: seq 1's group-mates 2-4,
	// 3 counted), or — once in a CI run on moto, where the preview's
	// release can hand seq 1 to one worker before seq 0 to another — it
	// stays behind too, held back with the rest (4 counted): later than
	// it could, never out of order, nothing lost. The other groups arrive
	// whole; their order is SQS's to keep, which moto does not while the
	// plan's preview holds a group's first messages
	// (TestSlowRedriveFIFOKeepsGroupOrder checks it without one).
	g1 := order["g1"]
	if !slices.Equal(g1, []int{0}) && len(g1) != 0 {
		t.Errorf("group g1 arrived as %v, want [0] (or nothing, held back whole)", g1)
	}
	for g, want := range map[string][]int{"g0": {0, 1, 2, 3, 4}, "g2": {0, 2, 3, 4}} {
		if got := slices.Sorted(slices.Values(order[g])); !slices.Equal(got, want) {
			t.Errorf("group %s arrived as %v, want %v", g, order[g], want)
		}
	}
	heldBack := 4 - len(g1) // g1's 2-4, and its 0 when it stayed behind
	if !strings.Contains(stdout.String(), fmt.Sprintf(`"held_back":%d`, heldBack)) {
		t.Errorf(`the summary does not count "held_back":%d`, heldBack)
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("%d messages held back in the DLQ: an earlier message of their FIFO group failed", heldBack)) {
		t.Error("the held-back messages are not said")
	}
	left, err := s.Drain(ctx, dlq)
	if err != nil {
		t.Fatal(err)
	}
	if want := 5 + 1 - len(g1); len(left) != want {
		t.Errorf("the DLQ holds %d, want %d (g1's 1-4 and its 0 unless it moved, g2's 1)", len(left), want)
	}
}
