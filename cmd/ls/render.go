package ls

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/sqsapi"

	"github.com/mfdlq/mfdlq/inventory"
)

// render prints the listing: JSON, or a table and the summary line (on
// stdout on a terminal, on stderr when piped so the rows stay rows).
func (o *LsOptions) render(res *lsResult, regions bool) error {
	d := o.deps
	if d.JSONOutput() {
		return d.PrintJSON(res)
	}
	tty := d.IO.OutTTY
	accounts := o.fleet.Active()
	t := cmdutil.TableData{Headers: []string{"DLQ", "MESSAGES", "IN FLIGHT", "OLDEST", "EXPIRES", "RETENTION", "SOURCES", "FUNCTIONS", "ALARM", "PITFALL", "NOTE"}}
	t.Headers = cmdutil.Scoped(t.Headers, "ACCOUNT", "REGION", accounts, regions)
	now := d.Now()
	for i := range res.DLQs {
		q := &res.DLQs[i]
		row := append(lsRow(&q.DLQ, now, tty), cmdutil.NoteCell(q.Note, q.Redrive, tty, now))
		t.Rows = append(t.Rows, cmdutil.Scoped(row, q.Account, q.Region, accounts, regions))
	}
	if len(t.Rows) > 0 {
		if err := d.PrintTable(t); err != nil {
			return err
		}
	}
	if tty {
		_, err := fmt.Fprintln(d.IO.Out, res.Summary.Text)
		for _, u := range append(res.Unreadable, res.Skipped...) {
			fmt.Fprintln(d.IO.Out, cmdutil.UnreadableLine(u))
		}
		return err
	}
	d.Infof("%s", res.Summary.Text)
	for _, u := range append(res.Unreadable, res.Skipped...) {
		fmt.Fprintln(d.IO.ErrOut, cmdutil.UnreadableLine(u))
	}
	return nil
}

// lsRow is one DLQ as a row: spoken durations on a terminal, RFC 3339
// times and seconds when piped.
func lsRow(q *inventory.DLQ, now time.Time, tty bool) []string {
	oldest, expires := "-", "-"
	switch {
	case q.Total() == 0:
	case q.Expiry == nil && tty:
		// No age: a message present now still goes within one retention.
		oldest, expires = "no data", "≤ "+sqsapi.Human(time.Duration(q.Retention)*time.Second)
	case q.Expiry == nil:
		oldest, expires = "no data", now.Add(time.Duration(q.Retention)*time.Second).UTC().Format(time.RFC3339)
	case tty:
		// The age now, not at the metric's last point.
		oldest = sqsapi.Human(now.Sub(q.Expiry.Oldest))
		expires = expiresText(q.Expiry, now)
	default:
		oldest = strconv.FormatInt(int64(*q.AgeOfOldest), 10)
		expires = q.Expiry.At.UTC().Format(time.RFC3339)
	}
	retention := strconv.FormatInt(q.Retention, 10)
	if tty {
		retention = sqsapi.Human(time.Duration(q.Retention) * time.Second)
	}
	srcs := make([]string, len(q.Sources))
	for i, s := range q.Sources {
		srcs[i] = s.Queue
	}
	pitfall := "-"
	switch {
	case q.RetentionPitfall && tty:
		// Said as the fault it is: the DLQ's retention is no longer than
		// its source's, so a message arrives already aged.
		pitfall = "retention ≤ source's"
	case q.RetentionPitfall:
		pitfall = "yes"
	}
	return []string{q.Queue, inventory.Thousands(q.Visible), inventory.Thousands(q.InFlight), oldest, expires,
		retention, listOr(srcs, "-"), known(q.Functions, q.FunctionsKnown), alarmText(q.Alarms, q.AlarmsKnown), pitfall}
}

// expiresText is "47 min", "≤ 47 min" when the message may go sooner (a
// standard queue: the time spent in the source is not seen). The table
// states durations only; JSON and piped rows carry the instant.
func expiresText(e *sqsapi.Expiry, now time.Time) string {
	left := e.In(now)
	if left <= 0 {
		return "due now"
	}
	bound := ""
	if e.UpperBound {
		bound = "≤ "
	}
	return bound + sqsapi.Human(left)
}

func listOr(l []string, none string) string {
	if len(l) == 0 {
		return none
	}
	return strings.Join(l, ", ")
}

// known lists l, or "?" when it could not be read.
func known(l []string, ok bool) string {
	if !ok {
		return "?"
	}
	return listOr(l, "-")
}

func alarmText(alarms []string, ok bool) string {
	switch {
	case !ok:
		return "?"
	case len(alarms) == 0:
		return "none"
	}
	return strings.Join(alarms, ", ")
}
