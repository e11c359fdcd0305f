package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd"
)

func TestGenerate(t *testing.T) {
	out := t.TempDir()
	if err := generate(cmd.RootCommand(), out); err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"contain", "inspect", "classify", "logs", "redrive", "verify", "record", "check", "runbook"} {
		b, err := os.ReadFile(filepath.Join(out, "man", "mfdlq-"+step+".1"))
		if err != nil {
			t.Fatalf("no man page for %s: %v", step, err)
		}
		if !strings.Contains(string(b), "Exit status") {
			t.Errorf("man page of %s lacks the exit statuses", step)
		}
		if _, err := os.Stat(filepath.Join(out, "md", "mfdlq_"+step+".md")); err != nil {
			t.Errorf("no markdown for %s", step)
		}
	}
	bash, err := os.ReadFile(filepath.Join(out, "completion", "mfdlq.bash"))
	if err != nil || !strings.Contains(string(bash), "__start_mfdlq") {
		t.Errorf("bash completion missing or wrong (%v)", err)
	}
	for _, f := range []string{"_mfdlq", "mfdlq.fish", "mfdlq.ps1"} {
		if st, err := os.Stat(filepath.Join(out, "completion", f)); err != nil || st.Size() == 0 {
			t.Errorf("completion %s missing", f)
		}
	}
}

// TestUnusedHelp: a block marked for a command the tree lacks is named,
// and the real tree leaves none.
func TestUnusedHelp(t *testing.T) {
	if got := unusedHelp(cmd.RootCommand()); len(got) != 0 {
		t.Errorf("the real tree leaves help unused: %v", got)
	}
	bare := &cobra.Command{Use: "mfdlq"}
	got := unusedHelp(bare)
	if len(got) == 0 || !strings.Contains(strings.Join(got, " "), "help: redrive") {
		t.Errorf("a tree without redrive: want redrive's help named unused, got %v", got)
	}
}
