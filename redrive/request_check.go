package redrive

import (
	"errors"
	"fmt"

	"github.com/mfdlq/mfdlq/redrive/lease"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/redrive/place"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/redrive/window"
	"github.com/mfdlq/mfdlq/untrusted"
)

// DefaultMaxWorkers is --max-workers' default: the cap of the adaptive
// batches in flight (mover.DefaultMaxWorkers).
const DefaultMaxWorkers = mover.DefaultMaxWorkers

// Validate checks the request's values against the bounds its rooms keep
// (the mover's workers, the lease's locations, the window's choices,
// place's accounts) before any AWS call; its error is one line naming the
// flag, for a usage error. The selection is checked by its own Parse.
func (r Request) Validate() error {
	if len(r.AllowAccounts) > 0 && r.FromFile == "" {
		return errors.New("--allow-account applies to --from-file: a --to in another account is named in the question")
	}
	for _, a := range r.AllowAccounts {
		if !place.ValidAccount(a) {
			return fmt.Errorf("--allow-account must be a 12-digit account id, got %q", untrusted.Shorten(untrusted.Terminal(a), 40))
		}
	}
	if _, err := lease.ParseLocation(r.Lease); r.Lease != "" && err != nil {
		return fmt.Errorf("--lease %v", err)
	}
	switch {
	case r.Workers < 0 || r.Workers > mover.MaxWorkersLimit:
		return fmt.Errorf("--workers must be between 1 and %d, got %d", mover.MaxWorkersLimit, r.Workers)
	case r.MaxWorkers < 1 || r.MaxWorkers > mover.MaxWorkersLimit:
		return fmt.Errorf("--max-workers must be between 1 and %d, got %d", mover.MaxWorkersLimit, r.MaxWorkers)
	case r.Canary < -1:
		return fmt.Errorf("--canary must be >= 0, got %d", r.Canary)
	case r.CanaryWait < 0:
		return fmt.Errorf("--canary-wait must be >= 0, got %s", r.CanaryWait)
	case r.MaxReturned < 0:
		return fmt.Errorf("--max-returned must be >= 0, got %d", r.MaxReturned)
	case r.Visibility < 10 || r.Visibility > 43200:
		return fmt.Errorf("--visibility must be between 10 and 43200 seconds, got %d", r.Visibility)
	case r.BeyondWindow != "" && r.BeyondWindow != window.BeyondMove && r.BeyondWindow != window.BeyondKeep:
		return fmt.Errorf("--beyond-window must be move or keep, got %q", r.BeyondWindow)
	case r.Native && r.BeyondWindow == window.BeyondKeep:
		return errors.New("--native moves every message: --beyond-window keep needs mfdlq's own mover (drop --native)")
	case r.IdempotencyWindow < 0:
		return fmt.Errorf("--idempotency-window must be > 0, got %s", r.IdempotencyWindow)
	case r.Native && r.Selection.Timed():
		return errors.New("--native moves every message: drop --sent-after/--sent-before, or drop --native")
	}
	return nil
}

// MemoryLimit is the most memory the move of this plan needs
// (mover.MemoryLimit of its backlog): the caller bounds its collector by it.
func (p *Plan) MemoryLimit() int64 { return mover.MemoryLimit(p.Backlog) }

// ProvenanceLine says how many messages the move stamped ("" when none
// was handled, or none is stamped).
func (s *Summary) ProvenanceLine(p *Plan) string {
	if s.Stats.Handled() == 0 {
		return ""
	}
	return provenance.NewFigures(p.ProvenanceOff(), "", s.Stats.Stamps).Line()
}
