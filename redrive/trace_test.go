package redrive

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// MFDLQ_CPUPROFILE writes a new 0600 file and never follows a link put
// where its file would go.
func TestProfileRunCreatesItsOwnFile(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "cpu")
	t.Setenv(ProfileEnv, base)
	mine := fmt.Sprintf("%s.%d", base, os.Getpid())

	profileRun()()
	st, err := os.Lstat(mine)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 || !st.Mode().IsRegular() {
		t.Fatalf("profile file mode %v, want a regular 0600 file", st.Mode())
	}

	os.Remove(mine)
	target := filepath.Join(dir, "elsewhere")
	if err := os.Symlink(target, mine); err != nil {
		t.Fatal(err)
	}
	profileRun()()
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("the profile followed a link to %s (%v)", target, err)
	}
}
