// Package report renders an incident directory as the markdown report of
// step 7, written for the ticket: the incident in a paragraph and a table
// (how many, what, cause, change, the redrive and verify, when an alarm
// would have fired), a timeline, one section per step read from the step's
// own artifact and event figures (each with its writer's type), and what
// would have warned earlier with every command run. It is redacted unless
// asked not to be.
package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/redact"
)

// ReportOptions are what the operator adds to the incident's own record.
type ReportOptions struct {
	Cause   string // what caused it; empty: a visible TODO
	Change  string // what was changed; empty: the latest fix event, else a TODO
	Warning string // what would have warned earlier; check's findings are added
	// Operator is who ran the incident, from the environment (USER/LOGNAME).
	Operator string
	// Now stamps the report; injected so golden files hold.
	Now time.Time
	// Command is the record command itself, listed last among the commands.
	Command []string
	// NoRedact keeps bodies and log lines in clear.
	NoRedact bool
}

// ReportResult says what the report left out or changed.
type ReportResult struct {
	// Redacted counts the values replaced, by kind; nil with NoRedact.
	Redacted redact.Counts
	// TODO names the record fields left for the operator to fill in.
	TODO []string
}

// Render writes the incident report as markdown. Every value that comes
// from data or from the operator — bodies, log lines, evidence, names,
// commands, --cause and the other texts — reaches the markdown through one
// of the encoders in encode.go: redacted unless NoRedact (a --filter can
// quote an e-mail address as easily as a body can), sanitised, shortened
// and encoded, so that it can neither add a heading nor raw HTML. The
// report stays under 1 MiB and every line under 4,000 characters.
func (inc *Incident) Render(w io.Writer, o ReportOptions) (ReportResult, error) {
	var res ReportResult
	if !o.NoRedact {
		inc.red = &redact.Redactor{}
	}
	inc.now = o.Now
	defer func() { inc.red = nil }()
	var body strings.Builder
	inc.writeAnswer(&body)
	inc.writeSummary(&body, o, &res)
	inc.writeTimeline(&body)
	inc.writeToChange(&body, o, &res)
	body.WriteString("---\n\n# Appendix: the details\n\n")
	inc.writeHeader(&body, o)
	inc.writeCommands(&body, o)
	inc.writeSteps(&body)
	var head strings.Builder
	fmt.Fprintf(&head, "# Incident report: %s\n\n", inc.plain(orDash(inc.queueEvent().Queue), maxName))
	notice := "> Not redacted (--no-redact): message bodies and log lines below are as the queue and the logs hold them. Handle this report as personal data.\n"
	if inc.red != nil {
		res.Redacted = inc.red.Counts
		notice = redactionNotice(inc.red.Counts)
	}
	head.WriteString(notice)
	head.WriteString("\n")
	_, err := io.WriteString(w, bound(head.String()+body.String()))
	return res, err
}

// clean redacts s before it is shortened, so that cutting a body never
// leaves half a card number that no longer looks like one.
func (inc *Incident) clean(s string) string {
	if inc.red == nil {
		return s
	}
	return inc.red.String(s)
}

func redactionNotice(c redact.Counts) string {
	if c.Total() == 0 {
		return "> Redacted: bodies, log lines and commands were checked for e-mail addresses, phone numbers, card numbers, IBANs, tokens and AWS keys; none were found.\n"
	}
	var parts []string
	for _, k := range c.Kinds() {
		parts = append(parts, fmt.Sprintf("%d %s", c[k], k))
	}
	return fmt.Sprintf("> Redacted: personal data and secrets in bodies, log lines and commands are replaced by `[redacted:KIND]` (%s). The incident directory holds them in clear; `mfdlq record --no-redact` renders them.\n",
		strings.Join(parts, ", "))
}

// writeHeader is the appendix's table of where and who: the queue, its
// account and region, the one operator identity, when.
func (inc *Incident) writeHeader(b *strings.Builder, o ReportOptions) {
	q := inc.queueEvent()
	b.WriteString("| | |\n|---|---|\n")
	inc.row(b, "queue", orDash(q.Queue))
	inc.row(b, "account, region", orDash(q.Account)+", "+orDash(q.Region))
	inc.row(b, "time span", inc.span())
	fmt.Fprintf(b, "| operator | %s |\n", inc.operatorIdentity(o.Operator))
	inc.row(b, "report written", inc.at(o.Now))
	fmt.Fprintf(b, "| incident directory | %s |\n", inc.codeCell(inc.Dir, maxValue))
}

// queueEvent is the first event that names a queue: the DLQ the incident is
// about, since every step starts from it.
func (inc *Incident) queueEvent() incident.Event {
	for _, ev := range inc.Events {
		if ev.Queue != "" {
			return ev
		}
	}
	return incident.Event{}
}

func (inc *Incident) span() string {
	if len(inc.Events) == 0 {
		return "-"
	}
	first, last := inc.eventSpan()
	return fmt.Sprintf("%s → %s (%s)", inc.at(first), inc.at(last), human(last.Sub(first)))
}

// eventSpan is when the first and the last step ran (zero without any).
func (inc *Incident) eventSpan() (first, last time.Time) {
	for i, ev := range inc.Events {
		if i == 0 || ev.Time.Before(first) {
			first = ev.Time
		}
		if i == 0 || ev.Time.After(last) {
			last = ev.Time
		}
	}
	return first, last
}

// row writes a two-column table row: k is the report's own, v is encoded.
func (inc *Incident) row(b *strings.Builder, k, v string) {
	fmt.Fprintf(b, "| %s | %s |\n", k, inc.plain(v, maxValue))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func intOrDash(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}
