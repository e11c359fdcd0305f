package archive

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Sink is where an export is written. Writes go to a temporary file;
// Commit makes it durable under its final name (or in S3) and Abort throws
// it away. A Commit that fails leaves the temporary file: it may hold the
// only copy of messages deleted at checkpoints, and the caller decides
// (Abort when nothing was deleted, fileSink.Keep when something was).
type Sink interface {
	io.Writer
	// Commit flushes, fsyncs and publishes the file; after it returns nil
	// the export survives a crash of mfdlq or of the machine.
	Commit(ctx context.Context) (location string, err error)
	// Abort removes the temporary file; never one that holds deleted
	// messages.
	Abort()
	// Size and SHA256 describe the bytes written.
	Size() int64
	SHA256() string
}

// ErrExists is an output that is already there: an export never replaces
// a file or an object.
var ErrExists = errors.New("already exists")

// fileSink writes a local file: a temporary file created 0600 next to the
// final name (O_EXCL|O_NOFOLLOW: never an existing file, never through a
// symlink), then hard-linked to the final name, which fails rather than
// replace anything that appeared there meanwhile.
type fileSink struct {
	path string
	tmp  *os.File // open until the end: a rescue copies from it
	buf  *bufio.Writer
	sum  hash.Hash
	n    int64
	// durable is the size at the last checkpoint: every byte before it
	// was fsynced before a message of it was deleted.
	durable int64
	// name is where the bytes are now: the partial file, or the final
	// name once linked; "" once removed on purpose (Abort).
	name string
	// dirSynced: the partial's own name was made durable (the directory
	// fsynced) before the first delete.
	dirSynced bool
	closed    bool
	// syncFile is (*os.File).Sync; a test makes it fail (a full disk).
	syncFile func(*os.File) error
}

// CheckPath refuses an output path that exists (a symlink included) or
// whose directory does not, before anything is read from SQS.
func CheckPath(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s: %w", path, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: no such directory", dir)
	}
	return nil
}

// NewFileSink creates the temporary file for an export to path.
func NewFileSink(path string) (Sink, error) {
	if err := CheckPath(path); err != nil {
		return nil, err
	}
	tmp, err := createTemp(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return nil, err
	}
	s := &fileSink{path: path, tmp: tmp, sum: sha256.New(), name: tmp.Name(), syncFile: (*os.File).Sync}
	s.buf = bufio.NewWriterSize(io.MultiWriter(tmp, s.sum), 256<<10)
	return s, nil
}

// createTemp creates dir/.base.RANDOM.partial, 0600, exclusively and
// without following a symlink.
func createTemp(dir, base string) (*os.File, error) {
	var r [6]byte
	if _, err := rand.Read(r[:]); err != nil {
		return nil, err
	}
	name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(r[:])+".partial")
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
}

func (s *fileSink) Write(p []byte) (int, error) {
	n, err := s.buf.Write(p)
	s.n += int64(n)
	return n, err
}

func (s *fileSink) Size() int64 { return s.n }

// Checkpoint flushes and fsyncs what was written so far, and checks that
// the partial file is still where it was created: an export deletes
// messages only once they are in a file that exists under a name, never
// in one that was removed while it ran (its inode lives only as long as
// mfdlq holds it open).
func (s *fileSink) Checkpoint() error {
	if err := s.buf.Flush(); err != nil {
		return err
	}
	if err := s.syncFile(s.tmp); err != nil {
		return err
	}
	if err := s.stillNamed(); err != nil {
		return err
	}
	if !s.dirSynced {
		// The partial's name must survive a power cut before a message of
		// it is deleted, not only its bytes.
		if err := syncDir(filepath.Dir(s.name)); err != nil {
			return fmt.Errorf("sync directory of %s: %w", s.name, err)
		}
		s.dirSynced = true
	}
	s.durable = s.n
	return nil
}

// Partial is the temporary file's name.
func (s *fileSink) Partial() string { return s.tmp.Name() }
func (s *fileSink) SHA256() string  { return hex.EncodeToString(s.sum.Sum(nil)) }

// sync flushes and fsyncs the temporary file; it stays open.
func (s *fileSink) sync() error {
	if err := s.buf.Flush(); err != nil {
		return err
	}
	return s.syncFile(s.tmp)
}

// Commit makes the file durable under its final name. When it fails the
// partial file stays where it is: it may hold the only copy of messages
// deleted at checkpoints, and only the caller knows (Abort, or Keep).
func (s *fileSink) Commit(context.Context) (string, error) {
	if err := s.sync(); err != nil {
		return "", fmt.Errorf("write %s: %w", s.path, err)
	}
	if err := s.stillNamed(); err != nil {
		return "", fmt.Errorf("write %s: %w", s.path, err)
	}
	if err := os.Link(s.tmp.Name(), s.path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%s: %w", s.path, ErrExists)
		}
		return "", fmt.Errorf("write %s: %w", s.path, err)
	}
	s.name = s.path
	os.Remove(s.tmp.Name())
	// The new name must survive a power cut as well as the bytes.
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		return "", fmt.Errorf("sync directory of %s: %w", s.path, err)
	}
	s.close()
	return s.path, nil
}

// Abort removes the temporary file: only for a file that holds no message
// deleted from SQS.
func (s *fileSink) Abort() {
	s.close()
	if s.name == s.tmp.Name() {
		os.Remove(s.tmp.Name())
		s.name = ""
	}
}

func (s *fileSink) close() {
	if !s.closed {
		s.tmp.Close()
		s.closed = true
	}
}

// stillNamed tells whether s.name is still this file (not removed, not
// replaced, its directory not gone).
func (s *fileSink) stillNamed() error {
	st, err := os.Lstat(s.name)
	if err != nil {
		return fmt.Errorf("%s is gone (removed while the export ran?): %w", s.name, err)
	}
	mine, err := s.tmp.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(st, mine) {
		return fmt.Errorf("%s was replaced while the export ran", s.name)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// IsGzipName tells whether an output name asks for gzip.
func IsGzipName(name string) bool { return strings.HasSuffix(name, ".gz") }
