package redrive

import (
	"github.com/spf13/cobra"
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
