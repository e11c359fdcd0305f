package incident

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReplaceableOnlyARegularFile: --out names a file that
// WriteFileAtomic renames over; a named pipe, a symbolic link (to a file
// or a pipe) or a directory in its place is refused by Replaceable and
// left as it is — record --out and inspect --out replaced the pipe and the
// link by a regular file (and, run as root, the device /dev/full). A
// regular file is replaced; a new path is created.
func TestReplaceableOnlyARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, make := range map[string]func(p string) error{
		"link to a file": func(p string) error { return os.Symlink(target, p) },
		"link to a pipe": func(p string) error { return os.Symlink(fifo, p) },
		"a directory":    func(p string) error { return os.Mkdir(p, 0o700) },
	} {
		p := filepath.Join(dir, name)
		if err := make(p); err != nil {
			t.Fatal(err)
		}
		assertRefused(t, p)
	}
	assertRefused(t, fifo)
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("the link's target was written: %q", b)
	}
	for _, p := range []string{target, filepath.Join(dir, "new")} {
		if err := Replaceable(p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := WriteFileAtomic(p, write("x")); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b, _ := os.ReadFile(p); string(b) != "x" {
			t.Fatalf("%s holds %q", p, b)
		}
	}
}

func assertRefused(t *testing.T, p string) {
	t.Helper()
	before, _ := os.Lstat(p)
	err := Replaceable(p)
	var nr *NotRegularError
	if !errors.As(err, &nr) {
		t.Fatalf("WriteFileAtomic(%s) = %v, want a NotRegularError", filepath.Base(p), err)
	}
	after, _ := os.Lstat(p)
	if after == nil || after.Mode() != before.Mode() {
		t.Fatalf("%s was changed", filepath.Base(p))
	}
}

func write(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}
