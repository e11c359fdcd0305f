package incident

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Root is ./incidents, where incidents went before they had a per-user
// place (DefaultRoot): an existing one is still read (Roots), so its open
// incidents are continued; new ones go to the per-user root.
const Root = "incidents"

// startLayout names a new incident by its UTC start time, to the minute
// (orders-dlq-20261130T2104Z): a date alone split an incident in two at
// midnight UTC. Legacy directories named by date (orders-dlq-2026-11-30)
// are still found.
const (
	startLayout  = "20060102T1504Z"
	legacyLayout = "2006-01-02"
)

// NewName is the directory name of an incident of queue started at start.
func NewName(queue string, start time.Time) string {
	return queue + "-" + start.UTC().Format(startLayout)
}

// Found is an incident directory of a queue under Root.
type Found struct {
	Dir     string
	Started time.Time
	// Last is the incident's latest step's event, notifications left out
	// (zero when it has none yet).
	Last Event
}

// Closed tells whether record closed the incident: its last step is a
// record that did not leave it open (record leaves open an incident whose
// DLQ still holds messages, unless --close). A record event of an older
// mfdlq, which always closed, has no verdict: closed.
func (f Found) Closed() bool { return Closes(f.Last) }

// Closes tells whether e, an incident's last step's event, closed it: a
// record that did not leave it open. Every reader of "is it closed" (the
// local finder, ls --incidents, the S3 incidents) asks this one question.
func Closes(e Event) bool { return e.Step == StepRecord && e.Verdict != RecordOpen }

// The verdicts of a record event: whether it closed the incident.
const (
	RecordClosed = "closed"
	RecordOpen   = "open"
)

// Stale is how long an open incident may sit without a step before a new
// step starts another: SQS keeps a message at most 14 days, so an incident
// idle for longer cannot be about the messages in the DLQ now.
const Stale = 14 * 24 * time.Hour

// LatestOpenIn finds, under the roots, the most recently started incident
// of queue that record has not closed and that had a step within Stale of
// now; ok is false when there is none. Only real directories count: a
// symlink is never followed.
func LatestOpenIn(roots []string, queue string, now time.Time) (Found, bool, error) {
	var best Found
	ok := false
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Found{}, false, fmt.Errorf("look for incidents of %s: %w", queue, err)
		}
		for _, e := range entries {
			if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
				continue
			}
			start, match := startOf(e.Name(), queue)
			if !match {
				continue
			}
			f := Found{Dir: filepath.Join(root, e.Name()), Started: start}
			events, err := ReadJSONLines[Event](filepath.Join(f.Dir, EventsFile), nil)
			if err != nil {
				continue
			}
			f.Last = LastStep(events)
			active := f.Started
			if f.Last.Time.After(active) {
				active = f.Last.Time
			}
			if f.Closed() || now.Sub(active) > Stale || (ok && !f.Started.After(best.Started)) {
				continue
			}
			best, ok = f, true
		}
	}
	return best, ok, nil
}

// stepNotify is the event a step's --notify appends after the step's own
// (cmdutil's NotifyEnd): bookkeeping, not a step of the incident.
const stepNotify = "notify"

// Bookkeeping tells whether e is a notification's event rather than a step.
func Bookkeeping(e Event) bool { return e.Step == stepNotify }

// LastStep is the latest event that is a step: a notification appended
// after record --notify must not reopen the incident record closed.
func LastStep(events []Event) Event {
	for i := len(events) - 1; i >= 0; i-- {
		if !Bookkeeping(events[i]) {
			return events[i]
		}
	}
	return Event{}
}

// startOf reads the start time in an incident directory's name: queue, a
// dash, the time, and an optional -N when two began in the same minute.
func startOf(name, queue string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, queue+"-")
	if !ok {
		return time.Time{}, false
	}
	if i := strings.LastIndexByte(rest, '-'); i > 0 && len(rest) > len(startLayout) && !strings.Contains(rest[:i], "-") {
		rest = rest[:i] // 20261130T2104Z-2
	}
	for _, layout := range []string{startLayout, legacyLayout} {
		if t, err := time.Parse(layout, rest); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// NewDir is the directory for a new incident of queue under root: named by
// its start time, with -2, -3 … when that name is taken (a closed incident
// begun in the same minute).
func NewDir(root, queue string, start time.Time) string {
	base := filepath.Join(root, NewName(queue, start))
	dir := base
	for n := 2; ; n++ {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		dir = fmt.Sprintf("%s-%d", base, n)
	}
}
