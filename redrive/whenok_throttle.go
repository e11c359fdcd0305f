package redrive

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/health"
)

// whenOKQuiet is how often a piped wait writes a line while nothing
// changes.
const whenOKQuiet = time.Minute

// WaitLog decides when a --when-ok wait written to a log (a piped stderr)
// writes its status again: when something changed, when it is ready, and
// at least once a minute (a log a person can tail).
type WaitLog struct {
	key   string
	shown time.Time
}

// Due tells whether st is written, and if so counts it as written.
func (w *WaitLog) Due(st health.Status) bool {
	key := statusKey(st)
	if key == w.key && st.Time.Sub(w.shown) < whenOKQuiet && !st.Ready {
		return false
	}
	w.key, w.shown = key, st.Time
	return true
}

// statusKey is what a piped status line is written again for: the
// alarms' states and since when, a failing read, readiness.
func statusKey(st health.Status) string {
	var b strings.Builder
	for _, a := range st.Alarms {
		fmt.Fprintf(&b, "%s=%s@%d;", a.Name, a.State, a.Since.Unix())
	}
	fmt.Fprintf(&b, "err=%t ready=%t", st.Error != "", st.Ready)
	return b.String()
}
