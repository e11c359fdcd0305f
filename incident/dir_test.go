package incident

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// modeOf is path's mode and owner, without following a link.
func modeOf(t *testing.T, path string) (os.FileMode, uint32) {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode(), st.Sys().(*syscall.Stat_t).Uid
}

func TestOpenRefusesUnsafeDirectories(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, root string) string // returns --incident
		problem string
	}{
		{"symlink to a directory", func(t *testing.T, root string) string {
			target := filepath.Join(root, "target")
			mustMkdir(t, target, 0o755)
			link := filepath.Join(root, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "is a symbolic link"},
		{"symlink with a trailing slash", func(t *testing.T, root string) string {
			target := filepath.Join(root, "target")
			mustMkdir(t, target, 0o700)
			link := filepath.Join(root, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link + "/"
		}, "is a symbolic link"},
		{"dangling symlink", func(t *testing.T, root string) string {
			link := filepath.Join(root, "dangling")
			if err := os.Symlink(filepath.Join(root, "nowhere"), link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "is a symbolic link"},
		{"regular file", func(t *testing.T, root string) string {
			f := filepath.Join(root, "file")
			if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			return f
		}, "is not a directory"},
		{"group-writable", func(t *testing.T, root string) string {
			d := filepath.Join(root, "shared")
			mustMkdir(t, d, 0o770)
			return d
		}, "writable by group or others (mode 0770)"},
		{"sticky world-writable like /tmp", func(t *testing.T, root string) string {
			d := filepath.Join(root, "tmp")
			mustMkdir(t, d, 0o777|os.ModeSticky)
			return d
		}, "writable by group or others (mode 1777)"},
		{"owned by another user", func(t *testing.T, root string) string {
			if os.Geteuid() != 0 {
				t.Skip("needs root to chown")
			}
			d := filepath.Join(root, "nobody")
			mustMkdir(t, d, 0o700)
			if err := os.Chown(d, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return d
		}, "is owned by uid 65534"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := tt.setup(t, root)
			before := snapshot(t, root)
			_, err := Open(dir)
			var unsafe *UnsafeDirError
			if !errors.As(err, &unsafe) || !strings.Contains(err.Error(), tt.problem) {
				t.Fatalf("Open(%s) = %v, want an UnsafeDirError saying %q", dir, err, tt.problem)
			}
			if err := Check(dir); !errors.As(err, &unsafe) {
				t.Fatalf("Check(%s) = %v, want an UnsafeDirError", dir, err)
			}
			if _, err := Existing(dir); !errors.As(err, &unsafe) {
				t.Fatalf("Existing(%s) = %v, want an UnsafeDirError", dir, err)
			}
			if after := snapshot(t, root); after != before {
				t.Fatalf("Open changed the tree:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// snapshot lists every path under root with its mode and owner.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		mode, uid := modeOf(t, path)
		fmt.Fprintf(&b, "%s %v %d;", path, mode, uid)
		return nil
	})
	return b.String()
}

func mustMkdir(t *testing.T, d string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	// Chmod, not Mkdir's mode: the umask would hide the bits under test.
	if err := os.Chmod(d, mode); err != nil {
		t.Fatal(err)
	}
}

func TestOpenCreatesAndNeverChmods(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "a", "b", "inc")
	if _, err := Open(fresh); err != nil {
		t.Fatal(err)
	}
	if mode, _ := modeOf(t, fresh); mode.Perm() != 0o700 || !mode.IsDir() {
		t.Errorf("new incident directory mode %v, want drwx------", mode)
	}
	// An existing directory that is ours and not writable by others is
	// used as it is: 0755 stays 0755.
	mine := filepath.Join(root, "mine")
	mustMkdir(t, mine, 0o755)
	if _, err := Open(mine); err != nil {
		t.Fatal(err)
	}
	if mode, _ := modeOf(t, mine); mode.Perm() != 0o755 {
		t.Errorf("existing directory mode changed to %v", mode)
	}
}

func TestFilesAreNeverFollowed(t *testing.T) {
	root := t.TempDir()
	ws, err := Open(filepath.Join(root, "inc"))
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(root, "victim")
	if err := os.WriteFile(victim, []byte("root's file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{EventsFile, JournalFile, ClassificationFile, SamplesFile} {
		if err := os.Symlink(victim, ws.Path(name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ws.Append(Event{Step: "inspect"}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Append through a symlinked events.jsonl = %v, want a refusal", err)
	}
	if f, err := ws.OpenAppend(JournalFile); err == nil {
		f.Close()
		t.Error("OpenAppend followed a symlinked journal")
	}
	if _, err := ws.Events(); err == nil {
		t.Error("Events read through a symlinked events.jsonl")
	}
	var v map[string]any
	if err := ws.ReadJSON(ClassificationFile, &v); err == nil {
		t.Error("ReadJSON read through a symlink")
	}
	if _, err := ws.ReadFile(SamplesFile); err == nil {
		t.Error("ReadFile read through a symlink")
	}
	if b, _ := os.ReadFile(victim); string(b) != "root's file\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
	// A new artifact replaces the link itself, never writes through it.
	if err := ws.WriteJSON(ClassificationFile, map[string]string{"verdict": "poison"}); err != nil {
		t.Fatal(err)
	}
	if mode, _ := modeOf(t, ws.Path(ClassificationFile)); !mode.IsRegular() || mode.Perm() != 0o600 {
		t.Errorf("classification.json mode %v, want a regular 0600 file", mode)
	}
	if b, _ := os.ReadFile(victim); string(b) != "root's file\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
}

func TestFifoIsRefusedNotWaitedOn(t *testing.T) {
	ws, err := Open(filepath.Join(t.TempDir(), "inc"))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(ws.Path(EventsFile), 0o600); err != nil {
		t.Skip(err)
	}
	if err := ws.Append(Event{Step: "inspect"}); err == nil {
		t.Error("Append wrote into a FIFO")
	}
	if _, err := ws.Events(); err == nil {
		t.Error("Events read a FIFO")
	}
}
