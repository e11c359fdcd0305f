package cmd

import (
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// classify-fixture NAME... copies testdata/classify/NAME into $WORK.
func cmdClassifyFixture(ts *testscript.TestScript, neg bool, args []string) {
	for _, name := range args {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "classify", name))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(name), b, 0o600))
	}
}
