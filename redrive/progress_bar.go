package redrive

import (
	"fmt"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/plural"
)

// barWidth is the progress bar's width in cells.
const barWidth = 30

// Rate is m's messages a second, elapsed seconds after its rate's clock
// started (moved and resumed alike).
func (m Moment) Rate(elapsed float64) float64 {
	return float64(m.Moved+m.Resumed) / max(elapsed, 0.001)
}

// Bar is m as the progress bar a terminal shows, elapsed seconds in:
// done of total, the rate, the batches in flight, the time left, and why
// it may look stuck (hidden messages, which come back within visibility
// seconds; a --rate, asked as rate, not reached).
func (m Moment) Bar(elapsed float64, visibility int32, rate float64) string {
	st := m.Stats
	done, total, r := st.Moved+st.Resumed, m.Total, m.Rate(elapsed)
	wait := ""
	if st.Hidden > 0 {
		// Not stuck: messages hidden by a killed run or a lost receive
		// answer come back after their visibility timeout.
		wait = fmt.Sprintf(" · waiting up to %ds for %s to reappear", visibility, plural.Of(st.Hidden, "hidden message"))
	}
	if st.Behind != "" {
		wait += fmt.Sprintf(" · below --rate %g: %s", rate, st.Behind)
	}
	if total == 0 && done == 0 {
		// A move task's total is 0 until SQS starts it: not "0/0".
		return fmt.Sprintf("[%s] starting%s", strings.Repeat("░", barWidth), wait)
	}
	eta := "?"
	if r > 0 {
		eta = (time.Duration(float64(total-done)/r) * time.Second).Round(time.Second).String()
	}
	fill := barWidth * min(done, total) / max(total, 1)
	return fmt.Sprintf("[%s%s] %d/%d · %.1f msg/s · %d in flight · ETA %s%s", strings.Repeat("█", fill), strings.Repeat("░", barWidth-fill), done, total, r, st.Workers, eta, wait)
}
