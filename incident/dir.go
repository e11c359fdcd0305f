package incident

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// UnsafeDirError is an incident directory mfdlq refuses to write into: a
// symlink, not a directory, owned by someone else, or writable by group or
// others. mfdlq often runs as a privileged user and the directory receives
// message bodies, so it never follows, adopts or repairs such a path (it
// never chmods what exists); the operator picks another one.
type UnsafeDirError struct {
	Dir     string
	Problem string // what is wrong, e.g. "is a symbolic link"
	Fix     string // what to do
}

func (e *UnsafeDirError) Error() string {
	return fmt.Sprintf("incident directory %s %s: %s", e.Dir, e.Problem, e.Fix)
}

const fixOther = "pass --incident with a new path, or a directory you own with mode 0700"

// Check validates dir without changing anything: an absent dir is fine (Open
// will create it 0700); an existing one must be a real directory (not a
// symlink), owned by the user mfdlq runs as, and writable by no one else.
// Commands call it before any AWS call, so a bad --incident costs nothing.
func Check(dir string) error {
	if dir == "" {
		return &UnsafeDirError{Dir: `""`, Problem: "is empty", Fix: "pass --incident DIR"}
	}
	// Cleaned first: Lstat("link/") follows the link the trailing slash
	// names.
	st, err := os.Lstat(filepath.Clean(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &UnsafeDirError{Dir: dir, Problem: "cannot be read (" + errText(err) + ")", Fix: fixOther}
	}
	return checkInfo(dir, st)
}

func checkInfo(dir string, st fs.FileInfo) error {
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return &UnsafeDirError{Dir: dir, Problem: "is a symbolic link", Fix: "pass the real directory it points to (mfdlq never follows a link there), or a new path"}
	case !st.IsDir():
		return &UnsafeDirError{Dir: dir, Problem: "is not a directory", Fix: "pass --incident with a directory path"}
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return &UnsafeDirError{Dir: dir, Problem: fmt.Sprintf("is owned by uid %d, not by uid %d that mfdlq runs as", sys.Uid, os.Geteuid()),
			Fix: "pass --incident with a directory you own, or a new path"}
	}
	if perm := uint32(st.Mode().Perm()); perm&0o022 != 0 {
		if st.Mode()&fs.ModeSticky != 0 {
			perm |= 0o1000
		}
		return &UnsafeDirError{Dir: dir, Problem: fmt.Sprintf("is writable by group or others (mode %04o)", perm),
			Fix: fmt.Sprintf("run chmod go-w %s if it is yours alone, or pass --incident with a new path", dir)}
	}
	return nil
}

// Open returns the workspace at dir, creating it 0700 when it does not
// exist: the parents with MkdirAll, the directory itself with Mkdir, so
// that mfdlq knows it made it. An existing dir must pass Check. Nothing
// that exists is ever chmod-ed.
func Open(dir string) (*Workspace, error) {
	if dir != "" {
		dir = filepath.Clean(dir)
	}
	if err := Check(dir); err != nil {
		return nil, err
	}
	if parent := filepath.Dir(dir); parent != "." {
		if err := os.MkdirAll(parent, dirMode); err != nil {
			return nil, fmt.Errorf("create incident directory: %w", err)
		}
	}
	err := os.Mkdir(dir, dirMode)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create incident directory: %w", err)
	}
	// Checked again: another process may have put something there between
	// Check and Mkdir.
	return Existing(dir)
}

// Existing returns the workspace at dir without creating anything; it fails
// when dir does not exist or does not pass Check.
func Existing(dir string) (*Workspace, error) {
	if dir != "" {
		dir = filepath.Clean(dir)
	}
	if err := Check(dir); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(dir); err != nil {
		return nil, fmt.Errorf("incident directory %s: %w", dir, err)
	}
	return &Workspace{Dir: dir}, nil
}

// openFile opens a file of the incident with O_NOFOLLOW, so a symlink
// planted in the directory can never make mfdlq read or append to a file
// elsewhere, and through OpenRegular, so a FIFO cannot hang it.
func openFile(path string, flag int) (*os.File, error) {
	f, err := OpenRegular(path, flag|syscall.O_NOFOLLOW)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: mfdlq never follows one inside an incident directory: %w", path, err)
	}
	return f, err
}

// NotRegularError is a path that names something other than a regular
// file: mfdlq reads and writes regular files only. Kind says what it is
// ("a named pipe", "a device", "a directory", "a socket"), for the one line
// the operator reads.
type NotRegularError struct {
	Path, Kind string
}

func (e *NotRegularError) Error() string { return e.Path + " is " + e.Kind + ", not a regular file" }

// OpenRegular opens path with flag (plus O_NONBLOCK) and refuses, before
// reading a byte, anything but a regular file. It is the one way mfdlq
// opens a file: an incident's (openFile) and every path the operator
// names (--transform-file, redrive --from-file, classify --from,
// --baseline, logs --from, --log-file). A blocking open(2) of a named pipe
// nobody writes to never returns, and no signal ends it (SIGTERM waits on
// the open); O_NONBLOCK makes the open of a FIFO for reading return at
// once, and the fstat that follows refuses it. On a regular file
// O_NONBLOCK changes nothing. Anything but a regular file is a
// *NotRegularError.
func OpenRegular(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, fileMode)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			// A FIFO opened for writing with no reader.
			return nil, &NotRegularError{Path: path, Kind: "a named pipe"}
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: fileKind(st.Mode())}
	}
	return f, nil
}

// fileKind names what a path that is no regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// readFile reads a whole file of the incident through openFile.
func readFile(path string) ([]byte, error) {
	f, err := openFile(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
