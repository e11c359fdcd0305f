package cmdutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/mfdlq/mfdlq/archive"
	"github.com/mfdlq/mfdlq/awserr"
	"github.com/mfdlq/mfdlq/logsearch"
	"github.com/mfdlq/mfdlq/sqsapi"

	"github.com/spf13/cobra"
)

// Exit statuses, documented in README.md and at the end of every command's help.
const (
	ExitOK          = 0
	ExitUnexpected  = 1
	ExitUsage       = 2
	ExitCheckFailed = 3
	ExitAuth        = 4
	ExitNotFound    = 5
	ExitNotProven   = 6 // verify: nothing failed, but the fix is not proven yet
	ExitInterrupted = 130
)

const ExitStatusHelp = `
Exit status:
  0    ok
  1    unexpected failure
  2    usage or bad input (nothing was changed)
  3    a check did not pass, or mfdlq refused (not safe, or not confirmed:
       nothing changed); --output json's error line says which ("reason")
  4    credentials or permission
  5    queue not found
  6    not proven: nothing failed, but what would prove it had not held yet (verify)
  130  interrupted`

// ExitError carries an exit status through the cobra tree to Main.
type ExitError struct {
	Code int
	Err  error
	// Reason splits exit 3 for scripts, in the JSON error line: a check
	// that ran and failed, or a refusal before anything changed.
	Reason string
}

// The reasons of exit 3.
const (
	ReasonFailed  = "failed"  // checked, and it did not pass
	ReasonRefused = "refused" // not safe, or not confirmed: nothing changed
)

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UsageErrorf is bad input: exit 2, and the message names the fix.
func UsageErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// CheckFailedf is a check that ran and did not pass: exit 3.
func CheckFailedf(format string, args ...any) error {
	return &ExitError{Code: ExitCheckFailed, Err: fmt.Errorf(format, args...), Reason: ReasonFailed}
}

// Refusedf is a refusal before anything changed — not safe, or not
// confirmed: exit 3, as a failed check, told apart in the JSON error line.
func Refusedf(format string, args ...any) error {
	return &ExitError{Code: ExitCheckFailed, Err: fmt.Errorf(format, args...), Reason: ReasonRefused}
}

// ErrSilentNotProven exits 6 without another line: verify printed its
// "not proven" verdict and what would prove it.
var ErrSilentNotProven = &ExitError{Code: ExitNotProven, Err: errors.New("")}

// ErrSilentCheckFailed exits 3 without another line: the command already
// printed its verdict.
var ErrSilentCheckFailed = &ExitError{Code: ExitCheckFailed, Err: errors.New(""), Reason: ReasonFailed}

// exitReason is the reason of err's exit 3, or "".
func exitReason(err error) string {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Reason
	}
	return ""
}

// ExitCode maps an error to its documented exit status. A step error
// that carries a status of its own (redrive's --when-ok wait) is mapped by
// its command before it asks here (cmd's exitCode).
func ExitCode(err error, interrupted bool) int {
	var ee *ExitError
	var invalidRef *sqsapi.InvalidQueueRefError
	var invalidID *logsearch.InvalidIDError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.Code
	case interrupted && (errors.Is(err, context.Canceled) || errors.Is(err, ErrInterrupted)):
		return ExitInterrupted
	case errors.Is(err, ErrInterrupted):
		return ExitInterrupted
	case errors.Is(err, archive.ErrBucketDenied):
		return ExitAuth
	case errors.Is(err, archive.ErrBucketNotFound):
		return ExitNotFound
	case errors.As(err, &invalidRef), errors.As(err, &invalidID):
		return ExitUsage
	case errors.Is(err, sqsapi.ErrQueueNotFound), awserr.QueueMissing(err):
		return ExitNotFound
	case awserr.Denied(err), awserr.NoCredentials(err):
		return ExitAuth
	}
	return ExitUnexpected
}

// ErrInterrupted is returned by a command that stopped cleanly on Ctrl-C.
var ErrInterrupted = errors.New("interrupted")

// hintedError is an error that knows the next action: a suggestion for
// a typo, the DLQ of a source queue. Main prints the hint on a line of its
// own, or in the JSON line's "hint".
type hintedError struct {
	err  error
	hint string
}

func (e *hintedError) Error() string { return e.err.Error() }
func (e *hintedError) Unwrap() error { return e.err }

// WithHint attaches hint to err (nil stays nil, "" adds nothing).
func WithHint(err error, hint string) error {
	if err == nil || hint == "" {
		return err
	}
	return &hintedError{err: err, hint: hint}
}

// HintFor is the next action after err: its own hint, else the one of its
// exit status; for a usage error before the command ran, the command's
// own help.
func HintFor(err error, code int, failed *cobra.Command, parsing bool) string {
	var he *hintedError
	switch {
	case errors.As(err, &he):
		return he.hint
	case code == ExitUsage && parsing && failed != nil:
		return fmt.Sprintf("run '%s --help' for usage", failed.CommandPath())
	}
	return errorHint(code)
}

// errorHint adds the next action to errors whose fix is always the same.
func errorHint(code int) string {
	switch code {
	case ExitAuth:
		return "check AWS_PROFILE / --profile and that the role may call this API (docs/iam.md lists what each command needs)"
	}
	return ""
}
