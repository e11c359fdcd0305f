package archive

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxKept bounds the free names tried beside the requested one.
const maxKept = 100

// Keep is called when an export that deleted messages at checkpoints
// fails: the file holds the only copy of those messages. It cuts the file
// back to its last checkpoint — exactly the messages deleted, in whole
// gzip members or lines; those written since were not deleted and are made
// visible again — fsyncs it and makes sure it exists under a visible name:
// NAME.kept-N.EXT beside the requested one (never replacing anything), or,
// when the partial file or its directory was removed while the export ran,
// a copy from the still open file into that directory or rescueDir. It
// returns the name of the file that exists; an error only when no copy
// could be made anywhere.
func (s *fileSink) Keep(rescueDir string) (string, error) {
	defer s.close()
	// An fsync that failed may have left the tail unwritten; what came
	// before the last checkpoint was fsynced before any delete.
	if err := s.tmp.Truncate(s.durable); err == nil {
		_ = s.syncFile(s.tmp)
	}
	if s.stillNamed() == nil {
		if s.name != s.tmp.Name() {
			return s.name, nil // linked to the final name already
		}
		if kept, err := s.linkFree(filepath.Dir(s.path)); err == nil {
			os.Remove(s.tmp.Name())
			s.name = kept
			return kept, nil
		}
		return s.name, nil // the hidden partial stays: it exists
	}
	var errs []error
	for _, dir := range []string{filepath.Dir(s.path), rescueDir} {
		if dir == "" {
			continue
		}
		kept, err := s.copyFree(dir)
		if err == nil {
			s.name = kept
			return kept, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("no copy of %s could be made: %w", s.tmp.Name(), errors.Join(errs...))
}

// keptName is NAME.kept-N.EXT beside name (NAME.kept-N without a known
// extension), so that gunzip and editors still know the file.
func keptName(name string, n int) string {
	stem, ext := splitExt(name)
	return fmt.Sprintf("%s.kept-%d%s", stem, n, ext)
}

// linkFree links the partial file to the first free kept name in dir.
func (s *fileSink) linkFree(dir string) (string, error) {
	base := filepath.Join(dir, filepath.Base(s.path))
	for n := 1; n <= maxKept; n++ {
		name := keptName(base, n)
		err := os.Link(s.tmp.Name(), name)
		if err == nil {
			return name, syncDir(dir)
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: no free name up to %s", dir, keptName(base, maxKept))
}

// copyFree copies the file's durable bytes into a new file at the first
// free kept name in dir: created 0600, exclusively, never through a
// symlink, fsynced with its directory.
func (s *fileSink) copyFree(dir string) (string, error) {
	base := filepath.Join(dir, filepath.Base(s.path))
	for n := 1; n <= maxKept; n++ {
		name := keptName(base, n)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = io.Copy(f, io.NewSectionReader(s.tmp, 0, s.durable))
		if err == nil {
			err = s.syncFile(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = syncDir(dir)
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("copy to %s: %w", name, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("%s: no free name up to %s", dir, keptName(base, maxKept))
}

// splitExt cuts name before the first of partExts it ends in.
func splitExt(name string) (stem, ext string) {
	for _, e := range partExts {
		if s, ok := strings.CutSuffix(name, e); ok && s != "" && !strings.HasSuffix(s, "/") {
			return s, e
		}
	}
	return name, ""
}
