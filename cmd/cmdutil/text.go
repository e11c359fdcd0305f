package cmdutil

import (
	"strconv"
	"time"

	"github.com/mfdlq/mfdlq/sqsapi"
)

// UTCText is an instant as a person reads it: "22:03 UTC" today,
// "2026-11-29 22:03 UTC" on another day.
func UTCText(t, now time.Time) string {
	t, now = t.UTC(), now.UTC()
	if t.Format(time.DateOnly) == now.Format(time.DateOnly) {
		return t.Format("15:04 UTC")
	}
	return t.Format("2006-01-02 15:04 UTC")
}

// SecondsText says a number of seconds as a person does: "12 seconds",
// "1 second", else minutes and more (sqsapi.Human).
func SecondsText(f float64) string {
	switch n := int64(f + 0.5); {
	case n == 1:
		return "1 second"
	case n < 120:
		return strconv.FormatInt(n, 10) + " seconds"
	}
	return sqsapi.Human(time.Duration(f * float64(time.Second)))
}
