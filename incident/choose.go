package incident

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Choose is the incident directory a step about queue writes into, and
// why (said on stderr): flag (--incident), else the MFDLQ_INCIDENT that
// getenv names, else the most recent incident of queue that record has not
// closed in Roots, else a new one in the per-user root (DefaultRoot) named
// by queue and now. The per-user root is checked (CheckRoot), never
// created: the step that writes makes it (MakeRoot).
func Choose(flag string, getenv func(string) string, queue string, now time.Time) (dir, why string, err error) {
	switch {
	case flag != "":
		return flag, "--incident", nil
	case getenv("MFDLQ_INCIDENT") != "":
		return getenv("MFDLQ_INCIDENT"), "MFDLQ_INCIDENT", nil
	}
	root, err := DefaultRoot(getenv)
	if err != nil {
		return "", "", err
	}
	if err := CheckRoot(root); err != nil {
		return "", "", err
	}
	f, ok, err := LatestOpenIn(Roots(root), queue, now)
	if err != nil {
		return "", "", err
	}
	if ok {
		return f.Dir, "continuing the open incident of " + queue + ", " + f.LastStep() + "; --incident DIR for another", nil
	}
	return NewDir(root, queue, now), "a new incident of " + queue + "; it stays open while the DLQ holds messages (mfdlq record --close closes it)", nil
}

// OtherOpen is the open incident of queue in the per-user roots when a
// step starts another in dir (a new --incident or MFDLQ_INCIDENT directory,
// not there yet): its verdict and sample are there, and --incident
// continues it. ok is false when dir exists or there is none.
func OtherOpen(getenv func(string) string, queue, dir string, now time.Time) (Found, bool) {
	if _, err := os.Lstat(dir); err == nil || queue == "" {
		return Found{}, false
	}
	root, err := DefaultRoot(getenv)
	if err != nil {
		return Found{}, false
	}
	f, ok, err := LatestOpenIn(Roots(root), queue, now)
	if err != nil || !ok || filepath.Clean(f.Dir) == filepath.Clean(dir) {
		return Found{}, false
	}
	return f, true
}

// LastStep says the incident's latest step and when.
func (f Found) LastStep() string {
	if f.Last.Step == "" {
		return "no step yet"
	}
	return fmt.Sprintf("last step %s at %s", f.Last.Step, f.Last.Time.UTC().Format("2006-01-02 15:04 UTC"))
}
