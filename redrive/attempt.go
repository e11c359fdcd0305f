package redrive

import "github.com/mfdlq/mfdlq/incident"

// Attempt numbers the fix a redrive moves after. It is 1 until a fix is
// recorded after a redrive ran, then 2, and so on: a new fix, recorded
// after the moved messages failed again, is a new attempt, and the
// messages that came back from the previous one may move again.
func Attempt(events []incident.Event) int {
	_, n := Fixes(events)
	return n
}

// Fixes returns the change texts of the fixes recorded in each attempt,
// and the attempt a redrive would move in now (Attempt).
func Fixes(events []incident.Event) (map[int][]string, int) {
	fixes := map[int][]string{}
	n, moved := 1, false
	for _, ev := range events {
		switch ev.Step {
		case incident.StepRedrive:
			moved = true
		case incident.StepFix:
			if moved {
				n, moved = n+1, false
			}
			if c := FixOf(ev); c != "" {
				fixes[n] = append(fixes[n], c)
			}
		}
	}
	return fixes, n
}

// LatestFix is the change text of the incident's latest fix event, or "".
func LatestFix(events []incident.Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Step == incident.StepFix {
			return FixOf(events[i])
		}
	}
	return ""
}

// PreviousAttempt is the latest redrive event of an attempt before n, the
// one a new fix must improve on; ok is false for the first attempt.
func PreviousAttempt(events []incident.Event, n int) (incident.Event, bool) {
	var prev incident.Event
	found := false
	for _, ev := range events {
		if ev.Step == incident.StepRedrive && attemptOf(ev) < n {
			prev, found = ev, true
		}
	}
	return prev, found
}

func attemptOf(ev incident.Event) int { return max(FiguresOf(ev).Attempt, 1) }
