package redrive

import (
	"errors"
	"fmt"

	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/redrive/target"
	"github.com/mfdlq/mfdlq/untrusted"
)

// ErrRefused is a refusal before anything moved: not safe as asked (a
// guardrail, a loop, a route, another run's lease). Its line names the
// fix.
const ErrRefused ErrorKind = ErrNotFound + 1

// SortError is err as its caller tells it: its kind (ErrRefused, ErrUsage,
// ErrNotFound, or 0 for an error whose status follows AWS's answer) and the
// error to say, for a refusal the line naming the fix (dlq: the DLQ's
// name, for the lease's line).
func SortError(err error, dlq string) (ErrorKind, error) {
	var refusal *Refusal
	var loop *target.LoopError
	var route *target.RouteError
	var held *lease.HeldError
	var notLease *lease.NotLeaseError
	switch {
	case errors.As(err, &notLease):
		return ErrRefused, fmt.Errorf("refusing: %v", notLease)
	case errors.As(err, &refusal):
		return ErrRefused, fmt.Errorf("refusing: %s", refusal.Reason)
	case errors.As(err, &loop):
		return ErrRefused, fmt.Errorf("refusing: %v", loop)
	case errors.As(err, &route) && route.Usage:
		return ErrUsage, route
	case errors.As(err, &route):
		return ErrRefused, fmt.Errorf("refusing: %v", route)
	case errors.As(err, &held):
		how := "is being redriven by"
		if held.Race {
			how = "was taken a moment ago by another redrive:"
		}
		return ErrRefused, fmt.Errorf("%s %s %s: wait for it to finish, or if that run died pass --take-over", dlq, how, untrusted.Shorten(untrusted.Terminal(held.Holder.Describe()), 300))
	}
	return KindOf(err), err
}
