// Package runbook is the runbook itself: the seven steps of a DLQ incident
// as a flow — their order, what comes next after each verdict, the forks
// where the runbook stops, and the safe choice at each when nobody is there
// to ask. It runs the steps through a Runner (cmd runs each as its command)
// and decides from what the incident's events say, never from a step's
// memory.
package runbook

import (
	"strings"

	"github.com/mfdlq/mfdlq/incident"
)

// The steps, by the name their events carry (incident's names).
const (
	StepContain  = incident.StepContain
	StepInspect  = incident.StepInspect
	StepChanges  = incident.StepChanges
	StepClassify = incident.StepClassify
	StepLogs     = incident.StepLogs
	StepFix      = incident.StepFix
	StepRedrive  = incident.StepRedrive
	StepVerify   = incident.StepVerify
	StepCheck    = incident.StepCheck
	StepRecord   = incident.StepRecord
)

// Step is one step of the runbook as the operator sees it announced.
type Step struct {
	Name   string // as its events carry it
	Number string // "1/7" … "7/7"; "" for the fix and the safeguards, which have no number
	Title  string // what it answers
}

// Line is the step's announcement: "step 1/7: contain — is the problem
// still alive?", or for an unnumbered step "fix — what was changed before
// the redrive".
func (s Step) Line() string {
	if s.Number == "" {
		return s.Name + " — " + s.Title
	}
	return "step " + s.Number + ": " + s.Name + " — " + s.Title
}

// Steps are the runbook's steps in order, up to verify; the safeguards and
// the record follow whatever happened (Check, Record).
//
// This list is the one place the steps are numbered: the root help, each
// command's one-line help (Label) and the runbook's announcements are
// built from it, and a test holds README.md's and docs/runbook.md's tables
// to it. Seven numbers: step 3, why it failed, is two commands — changes
// gathers the evidence, classify weighs it; the fix (before the redrive)
// and check (after verify, before the record) carry no number, because
// neither is a step of every incident.
var Steps = []Step{
	{StepContain, "1/7", "is the problem still alive?"},
	{StepInspect, "2/7", "what is in there?"},
	{StepChanges, "3/7", "what changed around the first failure (CloudTrail, alarms, the consumer's metrics)"},
	{StepClassify, "3/7", "poison, transient or data"},
	{StepLogs, "4/7", "the consumer's real exception"},
	{StepFix, "", "what was changed before the redrive"},
	{StepRedrive, "5/7", "the move back"},
	{StepVerify, "6/7", "did the fix hold?"},
}

// Check looks at the safeguards so the report can say what would have
// warned earlier.
var Check = Step{StepCheck, "", "the safeguards that would have warned earlier"}

// Record writes the report.
var Record = Step{StepRecord, "7/7", "what happened and what we learned"}

// All is every step in the order the runbook walks them: Steps, then
// Check and Record.
func All() []Step {
	return append(append([]Step{}, Steps...), Check, Record)
}

// Find is the step a command runs, by its name.
func Find(name string) (Step, bool) {
	for _, s := range All() {
		if s.Name == name {
			return s, true
		}
	}
	return Step{}, false
}

// Ordinal is the step's number alone ("3" of "3/7"); "" for an unnumbered
// step.
func (s Step) Ordinal() string {
	n, _, _ := strings.Cut(s.Number, "/")
	return n
}

// Label starts a command's one-line help: "Step 3/7" for a numbered step,
// "Safeguards" for check; "" for a command that is no step.
func Label(name string) string {
	s, ok := Find(name)
	switch {
	case ok && s.Number != "":
		return "Step " + s.Number
	case ok && s.Name == StepCheck:
		return "Safeguards"
	}
	return ""
}
