package changes

import (
	"fmt"
	"sort"
	"time"

	"github.com/mfdlq/mfdlq/untrusted"
)

// phrases say what a call did to its resource, %s being the resource.
var phrases = map[string]string{
	"UpdateFunctionCode":              "%s's code was updated",
	"UpdateFunctionConfiguration":     "%s's configuration was updated",
	"PublishVersion":                  "a version of %s was published",
	"CreateAlias":                     "an alias of %s was created",
	"UpdateAlias":                     "an alias of %s was moved",
	"DeleteAlias":                     "an alias of %s was deleted",
	"CreateFunction":                  "%s was created",
	"DeleteFunction":                  "%s was deleted",
	"PutFunctionConcurrency":          "%s's reserved concurrency was set",
	"DeleteFunctionConcurrency":       "%s's reserved concurrency was removed",
	"PutProvisionedConcurrencyConfig": "%s's provisioned concurrency was set",
	"CreateEventSourceMapping":        "an event source mapping %s was created",
	"UpdateEventSourceMapping":        "the event source mapping %s was updated",
	"DeleteEventSourceMapping":        "the event source mapping %s was deleted",
	"PutRolePolicy":                   "an inline policy of %s was changed",
	"DeleteRolePolicy":                "an inline policy of %s was deleted",
	"AttachRolePolicy":                "a policy was attached to %s",
	"DetachRolePolicy":                "a policy was detached from %s",
	"UpdateAssumeRolePolicy":          "%s's trust policy was changed",
	"SetQueueAttributes":              "%s's attributes were changed",
	"AddPermission":                   "%s's policy was changed (permission added)",
	"RemovePermission":                "%s's policy was changed (permission removed)",
	"PurgeQueue":                      "%s was purged",
	"DeleteQueue":                     "%s was deleted",
	"DisableKey":                      "KMS key %s was disabled",
	"ScheduleKeyDeletion":             "KMS key %s was scheduled for deletion",
	"PutKeyPolicy":                    "KMS key %s's policy was changed",
	"RevokeGrant":                     "a grant on KMS key %s was revoked",
	"UpdateService":                   "ECS service %s was updated",
	"CreateService":                   "ECS service %s was created",
	"CreateDeployment":                "a deployment of %s was started",
	"UpdateStack":                     "stack %s was updated",
	"CreateStack":                     "stack %s was created",
	"DeleteStack":                     "stack %s was deleted",
	"ExecuteChangeSet":                "a change set of %s was executed",
	"CreateChangeSet":                 "a change set of %s was created",
	"UpdateStage":                     "API stage %s was updated",
	"PutParameter":                    "parameter %s was changed",
	"DeleteParameter":                 "parameter %s was deleted",
	"StartDeployment":                 "an AppConfig deployment of %s was started",
}

// Shortened is e with its strangers' fields (name, resource, user,
// reason) each at most limit bytes (untrusted.Shorten) and What said
// again of the shortened resource: the terminal's copy of an event whose
// trail fields can be hundreds of kilobytes.
func (e Event) Shortened(limit int) Event {
	s := func(v string) string { return untrusted.Shorten(v, limit) }
	e.Name, e.Resource, e.User, e.Reason = s(e.Name), s(e.Resource), s(e.User), s(e.Reason)
	e.What = what(e.Name, e.Resource)
	return e
}

func what(name, resource string) string {
	if p, ok := phrases[name]; ok {
		return fmt.Sprintf(p, resource)
	}
	return fmt.Sprintf("%s was called on %s", name, resource)
}

// Order sorts kept events: related to this queue first, then by closeness
// to the first failure, then by time and id so the order is stable.
func Order(evs []Event) {
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		if a.Relation != b.Relation {
			return a.Relation == Related
		}
		if da, db := abs(a.Offset), abs(b.Offset); da != db {
			return da < db
		}
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		return a.ID < b.ID
	})
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// Nearest is the kept change closest before the first failure (a change
// after it cannot have started it), else the closest after; nil when
// nothing was kept.
func Nearest(evs []Event) *Event {
	var best *Event
	for i := range evs {
		e := &evs[i]
		switch {
		case best == nil:
			best = e
		case (e.Offset <= 0) != (best.Offset <= 0):
			if e.Offset <= 0 {
				best = e
			}
		case abs(e.Offset) < abs(best.Offset), abs(e.Offset) == abs(best.Offset) && e.Relation == Related && best.Relation != Related:
			best = e
		}
	}
	if best == nil {
		return nil
	}
	out := *best
	return &out
}

// Sentence says a change in one line: "orders-producer's code was updated
// by ci-deployer at 22:03 UTC, one minute before the first failure".
func Sentence(e Event) string {
	s := e.What
	if e.User != "" {
		s += " by " + e.User
	}
	return fmt.Sprintf("%s at %s UTC, %s", s, e.Time.UTC().Format("15:04"), relative(e.Offset, "the first failure"))
}

// relative says an offset in words: "one minute before the first failure".
func relative(offset int64, what string) string {
	d := time.Duration(abs(offset)) * time.Second
	side := "before"
	if offset > 0 {
		side = "after"
	}
	if d < time.Minute {
		return "at " + what
	}
	return Words(d) + " " + side + " " + what
}

// Words says a duration the way a person would: "one minute", "12
// minutes", "2 h 5 min", "3 days".
func Words(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return "one minute"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	case d < 48*time.Hour:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}
