package redrive

import (
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/transform"
)

// transformFlags are --transform and --transform-file, bound once for the
// commands that repair messages on their way (redrive).
type transformFlags struct {
	Program string // --transform: a jq program
	File    string // --transform-file: a file holding one
}

// add binds the flags to c.
func (t *transformFlags) add(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&t.Program, "transform", "", "repair each message on its way: a jq program over its payload (inside an SNS or EventBridge envelope, the inner message) giving the new payload; set_attributes(f) sets message attributes (docs/transform.md)")
	f.StringVar(&t.File, "transform-file", "", "--transform's program read from FILE")
	c.MarkFlagsMutuallyExclusive("transform", "transform-file")
	c.MarkFlagsMutuallyExclusive("transform", "native")
	c.MarkFlagsMutuallyExclusive("transform-file", "native")
}

// program reads the program and compiles it once before any AWS call (a
// syntax error, an unknown function, a missing file is one line, exit 2),
// and returns its text and what names it in errors ("" without one): the
// request carries them, redrivestep.Resolve compiles them for the run.
func (t *transformFlags) program() (src, origin string, err error) {
	src, origin = t.Program, "--transform"
	switch {
	case t.File != "":
		s, err := transform.ReadFile(t.File)
		if err != nil {
			return "", "", cmdutil.UsageErrorf("%v", err)
		}
		src, origin = s, "--transform-file "+t.File
	case t.Program == "":
		return "", "", nil
	}
	if _, err := transform.Compile(src, origin); err != nil {
		return "", "", cmdutil.UsageErrorf("%v", err)
	}
	return src, origin, nil
}
