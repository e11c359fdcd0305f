package cmdutil

import (
	"strconv"
	"time"

	"github.com/mfdlq/mfdlq/sqsapi"

	"github.com/mfdlq/mfdlq/untrusted"
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

// A trail's fields are strangers' data of any size (a username, a
// resource of hundreds of kilobytes): the terminal shows at most MaxCell
// bytes of each, and MaxLine of a line, as every other command does;
// changes.json and the report keep them whole (the report bounds its own).
const (
	MaxCell = 200
	MaxLine = 600
)

// Short is s cut to MaxCell bytes for the terminal.
func Short(s string) string { return untrusted.Shorten(s, MaxCell) }

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
