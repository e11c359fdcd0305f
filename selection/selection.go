// Package selection is which of a DLQ's messages a step takes: --group,
// --filter, --sent-after, --sent-before and --max, one value from the
// flags (Parse) to the predicate the move runs (Compile), the words the
// plan and the report say (Text, Parts) and the incident's record (its
// JSON). A new selection flag is a field here, its flag line in cmd, its
// docs and a row of this package's test table.
package selection

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Selection is a selection as the operator gave it, its flags' values
// kept as typed (the incident records them), and the times they stand for
// once Parse resolved them. The zero value picks every message.
//
// Its JSON keys are the redrive event's inputs since the first incidents
// (redrive.Inputs embeds it): a key is renamed never, added with
// omitempty.
type Selection struct {
	// Max moves at most N messages (--max; 0: the backlog at start). It
	// bounds how many, not which: Empty does not look at it.
	Max int `json:"max"`
	// Filter is a jq expression over the message in the SQS API's shape,
	// its Body parsed when it is JSON (--filter): a message is picked when
	// the first output is neither false nor null.
	Filter string `json:"filter"`
	// SentAfter and SentBefore bound SentTimestamp, RFC 3339 as given
	// (--sent-after, --sent-before).
	SentAfter  string `json:"sent_after"`
	SentBefore string `json:"sent_before"`
	// MaxAge picks the messages sent within this duration before the
	// clock Parse is given, as given (--max-age, e.g. 6h).
	MaxAge string `json:"max_age,omitempty"`
	// Group picks the messages of one classification.json group (--group).
	Group string `json:"group"`

	// after and before are SentAfter and SentBefore resolved by Parse.
	after, before time.Time
	parsed        bool
}

// Parse resolves the flags' values against now (the caller's clock: no
// time.Now here) and validates them; its error is one line naming the
// flag and the fix, for a usage error before any AWS call.
func (s *Selection) Parse(now time.Time) error {
	s.after, s.before, s.parsed = time.Time{}, time.Time{}, false
	for _, t := range []struct {
		flag, val string
		dst       *time.Time
	}{{"--sent-after", s.SentAfter, &s.after}, {"--sent-before", s.SentBefore, &s.before}} {
		if t.val == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339, t.val)
		if err != nil {
			return fmt.Errorf("%s %q: use RFC 3339, e.g. 2025-03-02T03:00:00Z", t.flag, t.val)
		}
		*t.dst = v
	}
	if s.MaxAge != "" {
		d, err := time.ParseDuration(s.MaxAge)
		if err != nil || d <= 0 {
			return fmt.Errorf("--max-age %q: use a duration above 0, e.g. 6h or 90m", s.MaxAge)
		}
		s.after = now.Add(-d)
	}
	s.parsed = true
	return s.Validate()
}

// Validate checks the values together: the bounds in order, --max not
// negative, the filter compiles. Parse calls it.
func (s Selection) Validate() error {
	switch {
	case s.Max < 0:
		return fmt.Errorf("--max must be >= 0, got %d", s.Max)
	case s.MaxAge != "" && s.SentAfter != "":
		return errors.New("--max-age and --sent-after both bound how old a message may be: drop one")
	case !s.after.IsZero() && !s.before.IsZero() && !s.after.Before(s.before):
		return errors.New("--sent-after must be before --sent-before")
	}
	_, err := compileFilter(s.Filter)
	return err
}

// Empty tells whether the selection picks every message (--max aside).
func (s Selection) Empty() bool {
	return s.Filter == "" && !s.Timed() && s.Group == ""
}

// Timed tells whether the selection reads SentTimestamp: SQS's own move
// task (--native) cannot.
func (s Selection) Timed() bool { return s.SentAfter != "" || s.SentBefore != "" || s.MaxAge != "" }

// Text names the selection as given, for the plan: "--filter F,
// --sent-after T, --group G" ("" when Empty).
func (s Selection) Text() string {
	var parts []string
	for _, f := range [...]struct{ flag, v string }{{"--filter", s.Filter}, {"--sent-after", s.SentAfter}, {"--sent-before", s.SentBefore}, {"--max-age", s.MaxAge}, {"--group", s.Group}} {
		if f.v != "" {
			parts = append(parts, f.flag+" "+f.v)
		}
	}
	return strings.Join(parts, ", ")
}

// Part is one phrase of the selection in the report's sentence: Words
// with a %s where each of Values goes, encoded by the report (Code: as
// code, a jq filter; else as plain text, "" shown as a dash).
type Part struct {
	Words  string
	Values []string
	Code   bool
}

// Parts are the selection's phrases for the report, in its order: the
// group, the filter, the time bounds, the bound on the count.
func (s Selection) Parts() []Part {
	var ps []Part
	if s.Group != "" {
		ps = append(ps, Part{Words: "group %s", Values: []string{s.Group}})
	}
	if s.Filter != "" {
		ps = append(ps, Part{Words: "filter %s", Values: []string{s.Filter}, Code: true})
	}
	if s.SentAfter != "" || s.SentBefore != "" {
		ps = append(ps, Part{Words: "sent between %s and %s", Values: []string{s.SentAfter, s.SentBefore}})
	}
	if s.MaxAge != "" {
		ps = append(ps, Part{Words: "sent within %s before the move", Values: []string{s.MaxAge}})
	}
	if s.Max > 0 {
		ps = append(ps, Part{Words: "at most %s", Values: []string{strconv.Itoa(s.Max)}})
	}
	return ps
}
