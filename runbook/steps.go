// Package runbook is the runbook itself: the seven steps of a DLQ incident
// as a flow — their order, what comes next after each verdict, the forks
// where the runbook stops, and the safe choice at each when nobody is there
// to ask. It runs the steps through a Runner (cmd runs each as its command)
// and decides from what the incident's events say, never from a step's
// memory.
package runbook

// The steps, by the name their events carry.
const (
	StepContain  = "contain"
	StepInspect  = "inspect"
	StepClassify = "classify"
	StepLogs     = "logs"
	StepFix      = "fix"
	StepRedrive  = "redrive"
	StepVerify   = "verify"
	StepCheck    = "check"
	StepRecord   = "record"
)
