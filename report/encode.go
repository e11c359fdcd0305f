package report

import (
	"fmt"
	"strings"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/untrusted"
)

// Bounds on what one value may take in the report, in bytes before
// markdown encoding (which at most doubles them): whatever the incident
// holds, every line stays under maxLine and the report under maxReport.
const (
	maxName     = 200  // a queue, group, message id, verdict, status
	maxValue    = 400  // an evidence line, an exception, a reason, a figure list
	maxExcerpt  = 100  // a body's excerpt in the sample table
	maxLogLine  = 200  // one line of a log excerpt
	maxCommand  = 600  // one command line
	maxOperator = 1500 // --cause, --change, --warning, --fixed
	maxItems    = 50   // groups, messages, reasons... listed in one section
	maxLine     = 4000
	maxReport   = 1 << 20
	// maxScan is how much of a long value is redacted and hashed: only its
	// head can show, and redacting megabytes of a body nobody will see
	// would make the report slow for nothing.
	maxScan = 4096
)

// plain is the one way data reaches the report as text: redacted (unless
// --no-redact), sanitised for a terminal (people cat report.md), shortened
// with a hash suffix, then encoded so that markdown shows it as it is.
func (inc *Incident) plain(s string, limit int) string {
	return untrusted.Text(inc.bounded(s, limit))
}

// code is plain as an inline code span, for values read character by
// character: commands, errors, exceptions, signatures, paths.
func (inc *Incident) code(s string, limit int) string {
	return untrusted.Code(inc.bounded(s, limit))
}

// codeCell is code inside a table cell.
func (inc *Incident) codeCell(s string, limit int) string {
	return untrusted.CodeCell(inc.bounded(s, limit))
}

// fingerprint is a classify fingerprint as a code span: redacted,
// sanitised, and then shortened to about 120 characters however many keys
// the bodies had. Redaction comes first, on the whole fingerprint: a card
// number that a cut leaves without its last digit (its Luhn check digit)
// is no longer recognised as one, and the digits shown are enough to
// rebuild it. Redaction keeps commas and braces, so the shortening still
// sees the fields and the key list.
func (inc *Incident) fingerprint(fp string) string {
	if len(fp) > maxFingerprintScan {
		fp = untrusted.Head(fp, maxFingerprintScan)
	}
	return untrusted.Code(untrusted.Fingerprint(untrusted.Terminal(inc.clean(fp))))
}

// maxFingerprintScan bounds the fingerprint redacted: what is past it is
// never shown (only the first keys are), and a fingerprint of a body with
// 100,000 keys would take the redactor a while for nothing.
const maxFingerprintScan = 64 << 10

// bounded is s redacted, sanitised and shortened: the shortening comes
// after the sanitising, whose escapes lengthen a value, and after the
// redaction, so that cutting never leaves half a card number that no
// longer looks like one. A value longer than maxScan is redacted only up
// to a token boundary before maxScan (untrusted.Head): the partial token
// at the cut is dropped, not shown.
func (inc *Incident) bounded(s string, limit int) string {
	if len(s) > maxScan {
		head := untrusted.Head(s, maxScan)
		return untrusted.ShortenHead(untrusted.Terminal(inc.clean(head)), len(s), limit)
	}
	return untrusted.Shorten(untrusted.Terminal(inc.clean(s)), limit)
}

// block is lines as a fenced code block, each line redacted, sanitised and
// shortened; no line of data can close the fence.
func (inc *Incident) block(lines []string, limit int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(inc.bounded(l, limit))
	}
	return untrusted.Fenced(b.String(), "")
}

// capped returns the first maxItems of n items and a line naming how many
// were left out ("" when none were); what is the item's singular noun.
func capped(n int, what string) (int, string) {
	return cappedAt(n, maxItems, what, "the incident directory")
}

// cappedAt is capped at limit items, the rest said to be in where.
func cappedAt(n, limit int, what, where string) (int, string) {
	if n <= limit {
		return n, ""
	}
	return limit, fmt.Sprintf("… %s more in %s\n", plural.Of(n-limit, what), where)
}

// joinBounded joins encoded parts with sep while the line stays within
// budget bytes, then names how many were left out.
func joinBounded(parts []string, sep string, budget int) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 && b.Len()+len(sep)+len(p) > budget {
			fmt.Fprintf(&b, "%s… %d more", sep, len(parts)-i)
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p)
	}
	return b.String()
}

// bound is the last guard on the report's size: a line over maxLine is
// replaced by a note (cutting it could split a code span and free what it
// holds), and the whole is cut at a line boundary before maxReport. The
// sections bound their values and items, so this only ever acts on an
// incident mfdlq did not write.
func bound(s string) string {
	var b strings.Builder
	b.Grow(min(len(s), maxReport))
	const note = "\n> The report was cut here to stay under 1 MiB: the incident directory holds everything.\n"
	for line := range strings.Lines(s) {
		if len(line) > maxLine {
			line = fmt.Sprintf("(a line of %d bytes was left out: the incident directory holds it)\n", len(line))
		}
		if b.Len()+len(line)+len(note) > maxReport {
			b.WriteString(note)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}
