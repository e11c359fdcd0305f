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
// it away.
type Sink interface {
	io.Writer
	// Commit flushes, fsyncs and publishes the file; after it returns nil
	// the export survives a crash of mfdlq or of the machine.
	Commit(ctx context.Context) (location string, err error)
	// Abort removes the temporary file.
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
	tmp  *os.File
	buf  *bufio.Writer
	sum  hash.Hash
	n    int64
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
	s := &fileSink{path: path, tmp: tmp, sum: sha256.New()}
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

// Checkpoint flushes and fsyncs what was written so far.
func (s *fileSink) Checkpoint() error {
	if err := s.buf.Flush(); err != nil {
		return err
	}
	return s.tmp.Sync()
}

// Partial is the temporary file's name.
func (s *fileSink) Partial() string { return s.tmp.Name() }
func (s *fileSink) SHA256() string  { return hex.EncodeToString(s.sum.Sum(nil)) }

// sync flushes and fsyncs the temporary file and closes it.
func (s *fileSink) sync() error {
	if err := s.buf.Flush(); err != nil {
		return err
	}
	if err := s.tmp.Sync(); err != nil {
		return err
	}
	return s.tmp.Close()
}

func (s *fileSink) Commit(context.Context) (string, error) {
	if err := s.sync(); err != nil {
		s.Abort()
		return "", fmt.Errorf("write %s: %w", s.path, err)
	}
	if err := os.Link(s.tmp.Name(), s.path); err != nil {
		s.Abort()
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%s: %w", s.path, ErrExists)
		}
		return "", fmt.Errorf("write %s: %w", s.path, err)
	}
	os.Remove(s.tmp.Name())
	// The new name must survive a power cut as well as the bytes.
	if d, err := os.Open(filepath.Dir(s.path)); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return "", fmt.Errorf("sync directory of %s: %w", s.path, err)
		}
	}
	return s.path, nil
}

func (s *fileSink) Abort() {
	s.tmp.Close()
	os.Remove(s.tmp.Name())
}

// IsGzipName tells whether an output name asks for gzip.
func IsGzipName(name string) bool { return strings.HasSuffix(name, ".gz") }
