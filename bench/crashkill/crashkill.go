// Package crashkill checks that a redrive survives SIGKILL: it starts the
// real mfdlq binary on a DLQ, kills it at a random moment, runs the same
// command again, and then reads every body back from the destination.
// Every run must lose nothing, duplicate at most 10 messages per batch in
// flight (the sends in flight at the kill), and the second run must finish.
package crashkill

import (
	"github.com/mfdlq/mfdlq/redrive/mover"

	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// Config is one series of kills.
type Config struct {
	Bin        string        // the mfdlq binary
	Runs       int           // kill/rerun cycles
	Messages   int           // messages in the DLQ per run
	Workers    int           // --workers of the redrive; 0: its adaptive default
	Visibility int           // --visibility of the redrive (seconds)
	KillAfter  time.Duration // kill at a random moment in [0, KillAfter)
	Dir        string        // where the incident directories go
	Log        io.Writer
	Seed       uint64
}

// Bound is the most duplicates one kill may leave: 10 per batch in flight,
// --workers or the adaptive cap.
func (cfg Config) Bound() int {
	if cfg.Workers > 0 {
		return 10 * cfg.Workers
	}
	return 10 * mover.DefaultMaxWorkers
}

// Result sums up the series.
type Result struct {
	Runs, Lost, MaxDuplicates, Duplicates int
	KilledMidMove                         int // kills that left messages in both queues
}

// Run performs the series against the SQS server s points at.
func Run(ctx context.Context, s *localaws.Seeder, cfg Config) (Result, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed+1))
	var res Result
	for i := range cfg.Runs {
		dups, mid, err := once(ctx, s, cfg, i, time.Duration(rng.Int64N(int64(cfg.KillAfter))))
		res.Runs++
		if err != nil {
			res.Lost++
			return res, fmt.Errorf("run %d: %w", i+1, err)
		}
		res.Duplicates += dups
		res.MaxDuplicates = max(res.MaxDuplicates, dups)
		if mid {
			res.KilledMidMove++
		}
	}
	return res, nil
}

func once(ctx context.Context, s *localaws.Seeder, cfg Config, i int, killAt time.Duration) (dups int, mid bool, err error) {
	name := localaws.UniqueName("crash")
	src, dlq, err := s.CreatePair(ctx, name, name+"-dlq", 3)
	if err != nil {
		return 0, false, err
	}
	defer deleteQueues(s, src, dlq)
	bodies := make([]string, cfg.Messages)
	for j := range bodies {
		bodies[j] = fmt.Sprintf(`{"run":%d,"order_id":"o-%d","version":2}`, i, j)
	}
	if err := s.Send(ctx, dlq, bodies, map[string]string{"ErrorCode": "E"}); err != nil {
		return 0, false, err
	}
	inc := filepath.Join(cfg.Dir, name)
	args := []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--canary", "0", "--yes", "--quiet",
		"--visibility", strconv.Itoa(cfg.Visibility), "--incident", inc}
	if cfg.Workers > 0 {
		args = append(args, "--workers", strconv.Itoa(cfg.Workers))
	}
	cmd := exec.Command(cfg.Bin, args...)
	if err := cmd.Start(); err != nil {
		return 0, false, err
	}
	time.Sleep(killAt)
	cmd.Process.Signal(syscall.SIGKILL)
	state, _ := cmd.Process.Wait()
	srcV, srcF, _ := s.Depth(ctx, src)
	dlqV, dlqF, _ := s.Depth(ctx, dlq)
	mid = srcV+srcF > 0 && dlqV+dlqF > 0
	again := exec.CommandContext(ctx, cfg.Bin, args...)
	out, err := again.CombinedOutput()
	if err != nil {
		return 0, mid, fmt.Errorf("rerun after a kill at %s: %v\n%s", killAt, err, out)
	}
	got, err := s.Drain(ctx, src)
	if err != nil {
		return 0, mid, err
	}
	left, _, _ := s.Depth(ctx, dlq)
	dups, err = compare(bodies, got)
	fmt.Fprintf(cfg.Log, "run %d: killed at %s (%s), source had %d, DLQ %d; rerun done: %d received, %d duplicate(s), %d left in the DLQ\n",
		i+1, killAt.Round(time.Millisecond), exitText(state), srcV+srcF, dlqV+dlqF, len(got), dups, left)
	switch {
	case err != nil:
		return dups, mid, err
	case left != 0:
		return dups, mid, fmt.Errorf("%d message(s) still in the DLQ after the rerun", left)
	case dups > cfg.Bound():
		return dups, mid, fmt.Errorf("%d duplicates, more than the %d messages a kill can leave in flight", dups, cfg.Bound())
	}
	return dups, mid, nil
}

// compare is Compare for the messages crashkill seeds.
func compare(bodies []string, got []types.Message) (int, error) {
	return Compare(bodies, got, "ErrorCode", "E")
}

// Compare checks that every body is among got at least once, each with its
// string attribute attr = want, and returns the extra copies.
func Compare(bodies []string, got []types.Message, attr, want string) (int, error) {
	seen := map[string]int{}
	for _, m := range got {
		seen[aws.ToString(m.Body)]++
		if aws.ToString(m.MessageAttributes[attr].StringValue) != want {
			return 0, fmt.Errorf("body %s lost its attributes", aws.ToString(m.Body))
		}
	}
	lost := 0
	for _, b := range bodies {
		if seen[b] == 0 {
			lost++
		}
	}
	if lost > 0 {
		return 0, fmt.Errorf("LOST %d message(s)", lost)
	}
	return len(got) - len(bodies), nil
}

func exitText(st *os.ProcessState) string {
	if st == nil {
		return "?"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed"
	}
	return "exited " + strconv.Itoa(st.ExitCode()) + " before the kill"
}

func deleteQueues(s *localaws.Seeder, urls ...string) {
	for _, u := range urls {
		s.SQS.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
	}
}
