package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/verify"
)

// The report opens with what a tired reader needs on one screen — the
// answer in words, the numbers, a short timeline and what to change — and
// keeps the details for the appendix, each fact said once.

// writeAnswer is the report's first line: the verdict in words and how
// the incident ended, without figures (the table below holds them).
func (inc *Incident) writeAnswer(b *strings.Builder) {
	b.WriteString("**" + inc.verdictWords() + "** " + inc.outcomeWords() + "\n\n")
}

// verdictSaid is each of classify's verdicts said for a person: the
// answer's first words, and what the messages were.
var verdictSaid = map[classify.Verdict]struct{ head, what string }{
	classify.VerdictPoison:    {"Poison:", "the messages fail however often they are retried, until the consumer or the messages change."},
	classify.VerdictTransient: {"Transient:", "the messages failed while something they depend on was failing; retried now, they can succeed."},
	classify.VerdictData:      {"Bad data:", "the messages themselves hold bad data."},
	classify.VerdictMixed:     {"Mixed causes:", "the messages failed for more than one reason (see the verdict's groups)."},
	classify.VerdictUnknown:   {"Cause not proven:", "classify could not tell why the messages failed."},
}

// verdictWords is classify's verdict said for a person.
func (inc *Incident) verdictWords() string {
	ev, ok := inc.Latest(incident.StepClassify)
	if !ok || ev.Verdict == "" {
		return "Not classified:"
	}
	if said, ok := verdictSaid[classify.Verdict(ev.Verdict)]; ok {
		return said.head
	}
	return inc.plain(plural.Spoken(ev.Verdict), maxName) + ":"
}

// outcomeWords says how the incident stands: what the messages were and
// what became of them.
func (inc *Incident) outcomeWords() string {
	ev, _ := inc.Latest(incident.StepClassify)
	what := "no step said why the messages failed."
	if said, ok := verdictSaid[classify.Verdict(ev.Verdict)]; ok {
		what = said.what
	}
	if _, ok := inc.Latest(incident.StepRedrive); !ok {
		return what + " Nothing was redriven."
	}
	if end := inc.latestEnd(); end.stopped() {
		// How it stopped and what it left are the table's redrive row.
		t := what + " The redrive stopped before it was done."
		if end.next != "" {
			t += " Next: " + end.next + "."
		}
		return t
	}
	v := inc.verifyVerdict()
	switch v {
	case verify.Pass:
		return what + " They were redriven and verify passed: the fix held."
	case verify.Fail:
		return what + " They were redriven and verify failed: the fix did not hold."
	case verify.NotProven:
		return what + " They were redriven; verify could not prove the fix yet."
	case "":
		return what + " They were redriven; verify was not run."
	}
	return what + " They were redriven; verify said " + inc.plain(plural.Spoken(string(v)), maxName) + "."
}

// verifyVerdict is verify's verdict, "" when verify did not run.
func (inc *Incident) verifyVerdict() verify.Verdict {
	if v := inc.Verify; v != nil {
		if v.Verdict != "" {
			return v.Verdict
		}
		return verify.VerdictOf(v.Pass)
	}
	if ev, ok := inc.Latest(incident.StepVerify); ok {
		return verify.Verdict(ev.Verdict)
	}
	return ""
}

// at writes t in UTC for the report: its time alone on the report's own
// day, with the date otherwise.
func (inc *Incident) at(t time.Time) string { return onDay(t, inc.now, "15:04:05 UTC") }

// onDay writes t in UTC by layout, the date before it unless t falls on
// ref's day (a zero ref has no day).
func onDay(t, ref time.Time, layout string) string {
	t = t.UTC()
	if y, m, d := ref.UTC().Date(); !ref.IsZero() && t.Year() == y && t.Month() == m && t.Day() == d {
		return t.Format(layout)
	}
	return t.Format("2006-01-02 " + layout)
}

// clock is at without the zone, for the timeline's rows (its heading says
// UTC).
func (inc *Incident) clock(t time.Time) string {
	return strings.TrimSuffix(inc.at(t), " UTC")
}

// human is a duration in words: seconds under a minute, else minutes,
// hours and days ("1 h 47 min").
func human(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	}
	return sqsapi.Human(d)
}

// durationWords is a Go duration string ("30m0s") in words ("30 min");
// any other text as it is.
func durationWords(s string) string {
	if d, err := time.ParseDuration(s); err == nil {
		return human(d)
	}
	return s
}

// timestampWords is an RFC 3339 time from an artifact (a log event's) as
// the report writes times; any other text as it is.
func (inc *Incident) timestampWords(s string) string {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return inc.at(t)
	}
	return s
}

// size is a byte count in words.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return plural.Of(int(n), "byte")
}

// operatorIdentity is the one name the report gives whoever ran the
// incident: the AWS identity the redrive recorded (STS GetCallerIdentity,
// the identity that changed AWS), said as a person reads it; else the
// login name record ran under, marked so. Runs made by more than one
// identity are said to be (the redrive's runs table names each).
func (inc *Incident) operatorIdentity(login string) string {
	var sts string
	if ev, ok := inc.Latest(incident.StepRedrive); ok {
		if p := redrive.FiguresOf(ev).Provenance; p != nil {
			sts = p.Operator
		}
	}
	distinct := map[string]bool{}
	for _, op := range inc.Operators {
		if op != "" {
			distinct[op] = true
		}
	}
	if sts == "" {
		// Without the event's, the latest run's: run ids begin with their
		// start time, so the last in order is the latest.
		runs := slices.Sorted(maps.Keys(inc.Operators))
		for i := len(runs) - 1; i >= 0 && sts == ""; i-- {
			sts = inc.Operators[runs[i]]
		}
	}
	if sts == "" {
		if login == "" {
			return "-"
		}
		return inc.plain(login, maxName) + " (login name; no AWS identity recorded)"
	}
	who := inc.plain(callerWords(sts), maxName)
	if len(distinct) > 1 {
		who += fmt.Sprintf(" and %s (the redrive's runs name each)", plural.Of(len(distinct)-1, "other"))
	}
	return who
}

// callerWords is an STS caller ARN as a person reads it: an assumed
// role's session with its role, a user by name, each with the account.
func callerWords(s string) string {
	a, err := arn.Parse(s)
	if err != nil {
		return s
	}
	parts := strings.Split(a.Resource, "/")
	switch {
	case parts[0] == "assumed-role" && len(parts) >= 3:
		return fmt.Sprintf("%s (role %s, account %s)", parts[len(parts)-1], parts[1], a.AccountID)
	case parts[0] == "user" && len(parts) >= 2:
		return fmt.Sprintf("%s (IAM user, account %s)", parts[len(parts)-1], a.AccountID)
	case parts[0] == "root":
		return fmt.Sprintf("the root user of account %s", a.AccountID)
	}
	return s
}

// writeToChange is "What to change": the operator's --warning and check's
// findings that did not pass, each once.
func (inc *Incident) writeToChange(b *strings.Builder, o ReportOptions, res *ReportResult) {
	b.WriteString("## What to change\n\n")
	warnings := inc.Warnings()
	if o.Warning != "" {
		warnings = append([]string{o.Warning}, warnings...)
	}
	if len(warnings) == 0 {
		fmt.Fprintf(b, "%s\n\n", inc.todo("", "warning", "what would have warned earlier", res))
		return
	}
	n, more := capped(len(warnings), "warning")
	for _, w := range warnings[:n] {
		fmt.Fprintf(b, "- %s\n", inc.plain(w, maxOperator))
	}
	b.WriteString(more)
	b.WriteString("\n")
}
