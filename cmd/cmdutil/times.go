package cmdutil

import "time"

// UTCText is an instant as a person reads it: "22:03 UTC" today,
// "2026-11-29 22:03 UTC" on another day.
func UTCText(t, now time.Time) string {
	t, now = t.UTC(), now.UTC()
	if t.Format(time.DateOnly) == now.Format(time.DateOnly) {
		return t.Format("15:04 UTC")
	}
	return t.Format("2006-01-02 15:04 UTC")
}
