package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mfdlq/mfdlq/internal/localaws"
)

// memoryMode moves n messages at --rate max and reports the peak RSS of
// the move, the journal it left, and the peak RSS of a rerun that reads
// that journal back (the resume state) and finds nothing left to move.
func memoryMode(s *localaws.Seeder) {
	name, src, dlq, bodies := fill(s, *n)
	settle()
	dir, err := os.MkdirTemp("", "movebench-")
	check(err)
	lastIncident = dir
	args := []string{"redrive", "--queue", name + "-dlq", "--to", name, "--canary", "0", "--yes", "--incident", dir, "--rate", "max", "--quiet"}
	el, rss := rusage(args)
	move := moveSeconds()
	peak := lastRedrive().PeakWorkers
	journal, err := os.Stat(filepath.Join(dir, "redrive-journal.jsonl"))
	check(err)
	_, rerunRSS := rusage(args)
	dups := verify("memory", s, src, dlq, bodies)
	fmt.Printf("memory: %d messages at --rate max (load %s): %.1f s (move phase %.1f s, %.0f msg/s), peak RSS %.1f MiB; journal %.1f MiB; rerun reading it: peak RSS %.1f MiB; at most %d batches in flight; %d duplicate(s), DLQ empty\n",
		*n, loadavg(), el.Seconds(), move, float64(*n)/move, float64(rss)/1024, float64(journal.Size())/(1<<20), float64(rerunRSS)/1024, peak, dups)
}

// rusage runs mfdlq with args and returns its wall time and peak RSS (KiB).
func rusage(args []string) (time.Duration, int64) {
	cmd := exec.Command(*bin, args...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		check(fmt.Errorf("%v\n%s", err, out))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		check(fmt.Errorf("no rusage"))
	}
	lastCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return time.Since(start), ru.Maxrss
}

// lastCPU is the CPU time (user and system) of rusage's last run: on a
// machine whose cores the server shares, the client's CPU per message
// decides more than its wall time shows.
var lastCPU time.Duration
