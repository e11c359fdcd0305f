package cmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFileFlagsRefuseANamedPipe: every path mfdlq reads, given as a named
// pipe nobody writes to, is refused with one line and exit 2 before any
// incident or AWS call — never an open(2) that blocks for good, which
// SIGTERM could not end (issue 48). The process runs on its own so that a
// hang is a failure (it is killed at the watchdog), not a stuck test; no
// AWS endpoint answers, so a flag checked after an AWS call fails too.
func TestFileFlagsRefuseANamedPipe(t *testing.T) {
	bin := mfdlqBinary(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	good := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(good, []byte(`{"MessageId":"a","Body":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"redrive", "--queue", "orders-dlq", "--transform-file", fifo, "--dry-run"},
		{"redrive", "--from-file", fifo, "--to", "orders"},
		{"classify", "--from", fifo},
		{"classify", "--from", good, "--baseline", fifo},
		{"inspect", "--queue", "orders-dlq", "--baseline", fifo},
		{"logs", "--queue", "orders-dlq", "--from", fifo, "--log-file", good},
		{"logs", "--queue", "orders-dlq", "--log-file", fifo},
	} {
		name := strings.NewReplacer(fifo, "PIPE", good, "FILE").Replace(strings.Join(args, " "))
		t.Run(name, func(t *testing.T) {
			// A watchdog, not a wait: a fixed mfdlq answers in milliseconds.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := exec.CommandContext(ctx, bin, args...)
			c.Dir = dir
			c.Env = append(os.Environ(), "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=y",
				"AWS_ENDPOINT_URL=http://127.0.0.1:1")
			var stderr bytes.Buffer
			c.Stderr = &stderr
			err := c.Run()
			if ctx.Err() != nil {
				t.Fatalf("mfdlq %v hung on a named pipe (killed after 30 s)", args)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("mfdlq %v: %v, want exit 2; stderr:\n%s", args, err, stderr.String())
			}
			lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], "a named pipe, not a regular file") {
				t.Fatalf("mfdlq %v: want one line naming the pipe, got:\n%s", args, stderr.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "incidents")); err == nil {
				t.Fatalf("mfdlq %v opened an incident before refusing the file", args)
			}
		})
	}
}

// TestOutRefusesWhatIsNotAFile: record --out and inspect --out write by a
// rename over the path, which replaced a named pipe, a symbolic link (to
// a file or a pipe) and, run as root, a device (/dev/full) by a regular
// file. Each is refused with one line and exit 2 before any incident or
// AWS call (no endpoint answers), and left as it was.
func TestOutRefusesWhatIsNotAFile(t *testing.T) {
	bin := mfdlqBinary(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"link-file", target}, {"link-pipe", fifo}} {
		if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	for _, out := range []string{"pipe", "link-file", "link-pipe"} {
		for _, args := range [][]string{
			{"record", "--incident", "inc", "--out", out},
			{"inspect", "--queue", "orders-dlq", "--out", out},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				before, _ := os.Lstat(filepath.Join(dir, out))
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				c := exec.CommandContext(ctx, bin, args...)
				c.Dir = dir
				c.Env = append(os.Environ(), "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=y",
					"AWS_ENDPOINT_URL=http://127.0.0.1:1")
				var stderr bytes.Buffer
				c.Stderr = &stderr
				err := c.Run()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 2 {
					t.Fatalf("mfdlq %v: %v, want exit 2; stderr:\n%s", args, err, stderr.String())
				}
				if lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "not a regular file") {
					t.Fatalf("mfdlq %v: want one line, got:\n%s", args, stderr.String())
				}
				if after, _ := os.Lstat(filepath.Join(dir, out)); after == nil || after.Mode() != before.Mode() {
					t.Fatalf("mfdlq %v replaced %s", args, out)
				}
				if _, err := os.Stat(filepath.Join(dir, "inc")); err == nil {
					t.Fatalf("mfdlq %v opened an incident before refusing --out", args)
				}
			})
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("the link's target was written: %q", b)
	}
}
