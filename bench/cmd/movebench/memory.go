package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
// The peak is the child's own VmHWM, sampled every 10 ms while it runs:
// the rusage Maxrss of a process os/exec starts is not its own peak, since
// the kernel carries into it the high-water mark of the memory it shared
// with this process until its exec (os/exec starts children with vfork),
// and movebench holds every body it sent (a child doing nothing reported
// 603 MiB beside a 600 MiB parent). A peak reached and left within the
// last 10 ms before exit can be missed.
func rusage(args []string) (time.Duration, int64) {
	cmd := exec.Command(*bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	check(cmd.Start())
	done := make(chan struct{})
	peak := make(chan int64)
	go func() { peak <- watchHWM(cmd.Process.Pid, done) }()
	err := cmd.Wait()
	close(done)
	hwm := <-peak
	if err != nil {
		check(fmt.Errorf("%v\n%s", err, out.Bytes()))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		check(fmt.Errorf("no rusage"))
	}
	lastCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return time.Since(start), hwm
}

// watchHWM reads the VmHWM (KiB) of process pid every 10 ms until done is
// closed, and returns the last value read: the kernel keeps it as the
// process's own high-water mark, so it only grows.
func watchHWM(pid int, done <-chan struct{}) int64 {
	var hwm int64
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		if v, ok := readHWM(pid); ok {
			hwm = max(hwm, v)
		}
		select {
		case <-done:
			return hwm
		case <-t.C:
		}
	}
}

// readHWM reads the VmHWM line of /proc/pid/status; ok is false once the
// process has exited (a zombie has no such line).
func readHWM(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			_, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb)
			return kb, err == nil
		}
	}
	return 0, false
}

// lastCPU is the CPU time (user and system) of rusage's last run: on a
// machine whose cores the server shares, the client's CPU per message
// decides more than its wall time shows.
var lastCPU time.Duration
