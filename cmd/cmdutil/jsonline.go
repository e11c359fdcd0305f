package cmdutil

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/mfdlq/mfdlq/untrusted"
)

// WriteJSONLine writes v to w as one compact JSON line (a streamed record:
// progress, a wait's status, a summary), escaped by untrusted.JSON as every
// JSON line mfdlq writes: names in it are the account's data, and a piped
// stderr is often a terminal's scrollback after all.
func WriteJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(untrusted.JSON(b)))
	return err
}

// PrintJSONLine writes v as one JSON line on stdout (WriteJSONLine).
func (d *Deps) PrintJSONLine(v any) error { return WriteJSONLine(d.IO.Out, v) }
