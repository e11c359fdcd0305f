package cmd

import (
	"github.com/spf13/cobra"

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

// compile reads and compiles the program (nil when none is given) before
// any AWS call: a syntax error, an unknown function, a missing file is one
// line, exit 2.
func (t *transformFlags) compile() (*transform.Program, error) {
	src, origin := t.Program, "--transform"
	switch {
	case t.File != "":
		s, err := transform.ReadFile(t.File)
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		src, origin = s, "--transform-file "+t.File
	case t.Program == "":
		return nil, nil
	}
	p, err := transform.Compile(src, origin)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return p, nil
}
