package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrInUse is Open's answer while another process has the journal open:
// two runs of one incident directory at once (two terminals, or a run
// that receives while its lease is still being read back) must never
// both append to, mend or compact one journal.
var ErrInUse = errors.New("another mfdlq redrive is using this incident's journal: wait for it to end (mfdlq ls shows it), or run from another incident directory")

// lockDir takes an exclusive, non-blocking flock on the journal's
// directory for as long as the returned file stays open. The lock is the
// directory's, not the journal's: a compaction replaces the journal file
// (a rename), and a lock on the old file would let a second writer in. The
// kernel drops it when the process dies, so a SIGKILLed run's rerun is
// never locked out.
func lockDir(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	d, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		d.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrInUse
		}
		return nil, fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	return d, nil
}
