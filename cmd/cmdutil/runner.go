package cmdutil

import "context"

// Runner runs one mfdlq command line with d as the root runs it (the
// command tree, the exit status, the error reported once on d's stderr)
// and returns the exit status. A command that runs other commands —
// browse's steps, mcp's tools — is given one by cmd, which knows every
// command: a command's package imports no other's.
type Runner func(ctx context.Context, d *Deps, args []string) int
