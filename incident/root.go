package incident

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The per-user place incidents live in when no directory is named, so the
// next step finds the incident from any directory (an incident that lived
// under the directory a command ran in slipped away when the on-call
// engineer ran the next step from another): $XDG_STATE_HOME/mfdlq/incidents,
// else ~/.local/state/mfdlq/incidents, as the XDG base directory
// specification puts state that should persist between runs (gh keeps its
// state there too).
const (
	appDir      = "mfdlq"
	incidentDir = "incidents"
)

// ErrNoStateDir says that no per-user place for incidents is known: no
// absolute XDG_STATE_HOME and no HOME.
var ErrNoStateDir = errors.New("no per-user directory for incidents: set XDG_STATE_HOME or HOME to an absolute path, or pass --incident DIR")

// DefaultRoot is the per-user incidents directory getenv's environment
// names. A relative XDG_STATE_HOME is ignored, as the specification says.
func DefaultRoot(getenv func(string) string) (string, error) {
	if s := getenv("XDG_STATE_HOME"); filepath.IsAbs(s) {
		return filepath.Join(s, appDir, incidentDir), nil
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", appDir, incidentDir), nil
	}
	return "", ErrNoStateDir
}

// Roots are the places a step looks for its queue's open incident: the
// per-user root, and ./incidents (Root) when it exists — where older
// mfdlq put them, still read so an incident begun there is continued.
func Roots(root string) []string {
	roots := []string{root}
	if st, err := os.Lstat(Root); err == nil && st.IsDir() && filepath.Clean(root) != Root {
		roots = append(roots, Root)
	}
	return roots
}

// CheckRoot validates the two directories mfdlq owns in the per-user root
// (mfdlq/ and mfdlq/incidents/) without changing anything, as Check does
// for an incident: absent is fine, an existing one must be a real
// directory (never a symlink), the user's, writable by no one else. The
// state directory above them is the user's own choice and is not judged.
func CheckRoot(root string) error {
	for _, dir := range []string{filepath.Dir(root), root} {
		if err := Check(dir); err != nil {
			return err
		}
	}
	return nil
}

// MakeRoot creates the per-user root safely: the state directory with
// MkdirAll 0700 when it is missing, then mfdlq/ and incidents/ each with
// Mkdir 0700 and checked after (CheckRoot), so a symlink planted there is
// refused, never followed, and nothing that exists is chmod-ed.
func MakeRoot(root string) error {
	app := filepath.Dir(root)
	if err := CheckRoot(root); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(app), dirMode); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(app), err)
	}
	for _, dir := range []string{app, root} {
		if err := os.Mkdir(dir, dirMode); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	// Checked again: something may have been put there meanwhile.
	return CheckRoot(root)
}
