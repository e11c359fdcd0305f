package runbook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/verify"
)

var errRefused = errors.New("refused")

// fakeEnv is an incident whose steps set the verdicts the test gives; it
// records which steps ran and what was said.
type fakeEnv struct {
	state   State
	effects map[string]func(*State) error // what running a step does
	choices map[string]Choice
	answer  string
	ran     []string
	fixes   []string
	said    strings.Builder
}

func (e *fakeEnv) Run(_ context.Context, step string) error {
	e.ran = append(e.ran, step)
	if f := e.effects[step]; f != nil {
		return f(&e.state)
	}
	return nil
}
func (e *fakeEnv) Refused(err error) bool { return errors.Is(err, errRefused) }
func (e *fakeEnv) State() State           { return e.state }
func (e *fakeEnv) RecordFix(c string) error {
	e.fixes = append(e.fixes, c)
	e.state.Fixed = true
	return nil
}
func (e *fakeEnv) Announce(s Step)         { fmt.Fprintf(&e.said, "── %s ──\n", s.Line()) }
func (e *fakeEnv) Choose(s Step) Choice    { return e.choices[s.Name] }
func (e *fakeEnv) Ask(string) string       { return e.answer }
func (e *fakeEnv) Info(f string, a ...any) { fmt.Fprintf(&e.said, f+"\n", a...) }
func (e *fakeEnv) Warn(f string, a ...any) { fmt.Fprintf(&e.said, "warning: "+f+"\n", a...) }
func (e *fakeEnv) Next(f string, a ...any) { fmt.Fprintf(&e.said, "next: "+f+"\n", a...) }

func verdicts(c contain.Verdict, k classify.Verdict, v verify.Verdict) map[string]func(*State) error {
	return map[string]func(*State) error{
		StepContain:  func(s *State) error { s.Contain = c; return nil },
		StepClassify: func(s *State) error { s.Classify, s.Fixed = k, false; return nil },
		StepRedrive:  func(s *State) error { s.Redriven = true; return nil },
		StepVerify:   func(s *State) error { s.Verify = v; return nil },
	}
}

func TestFlowForks(t *testing.T) {
	all := []string{"contain", "inspect", "changes", "classify", "logs", "redrive", "verify", "check", "record"}
	tests := []struct {
		name     string
		flow     Flow
		effects  map[string]func(*State) error
		choices  map[string]Choice
		answer   string
		wantStop string // a substring of Stop.Why; "" for no stop
		wantRan  []string
		wantFix  []string
	}{
		{name: "alive stops before inspect", flow: Flow{Unattended: true, LogGroups: true},
			effects: verdicts(contain.Alive, "", ""), wantStop: "alive", wantRan: []string{"contain", "check", "record"}},
		{name: "poison and no fix: stops before the redrive", flow: Flow{Unattended: true, LogGroups: true},
			effects: verdicts(contain.NotAlive, classify.VerdictPoison, ""), wantStop: "poison and no fix",
			wantRan: []string{"contain", "inspect", "changes", "classify", "logs", "check", "record"}},
		{name: "poison, --fixed: the whole way", flow: Flow{Unattended: true, LogGroups: true, Fixed: "consumer 1.8.0"},
			effects: verdicts(contain.NotAlive, classify.VerdictPoison, verify.Pass), wantRan: all, wantFix: []string{"consumer 1.8.0"}},
		{name: "poison on a terminal: the operator's answer is the fix", flow: Flow{LogGroups: true}, answer: "rolled back",
			effects: verdicts(contain.NotAlive, classify.VerdictPoison, verify.Pass), wantRan: all, wantFix: []string{"rolled back"}},
		{name: "unknown and no fix: stops before the redrive", flow: Flow{Unattended: true, LogGroups: true},
			effects: verdicts(contain.NotAlive, classify.VerdictUnknown, ""), wantStop: "classify says unknown",
			wantRan: []string{"contain", "inspect", "changes", "classify", "logs", "check", "record"}},
		{name: "unknown, --fixed: the whole way", flow: Flow{Unattended: true, LogGroups: true, Fixed: "ledger recovered"},
			effects: verdicts(contain.NotAlive, classify.VerdictUnknown, verify.Pass), wantRan: all, wantFix: []string{"ledger recovered"}},
		{name: "transient needs no fix", flow: Flow{Unattended: true},
			effects: verdicts(contain.NotAlive, classify.VerdictTransient, verify.Pass),
			wantRan: []string{"contain", "inspect", "changes", "classify", "redrive", "verify", "check", "record"}},
		{name: "verify fails: back to step 2", flow: Flow{Unattended: true, Fixed: "x"},
			effects: verdicts(contain.NotAlive, classify.VerdictPoison, verify.Fail), wantStop: "verify failed",
			wantRan: []string{"contain", "inspect", "changes", "classify", "redrive", "verify", "check", "record"}, wantFix: []string{"x"}},
		{name: "verify not proven: look longer, not back to step 2", flow: Flow{Unattended: true, Fixed: "x"},
			effects: verdicts(contain.NotAlive, classify.VerdictPoison, verify.NotProven), wantStop: "verify did not prove the fix within its wait",
			wantRan: []string{"contain", "inspect", "changes", "classify", "redrive", "verify", "check", "record"}, wantFix: []string{"x"}},
		{name: "the operator quits: no check, only the record", flow: Flow{},
			choices: map[string]Choice{StepInspect: Quit}, effects: verdicts(contain.NotAlive, "", ""),
			wantStop: "you stopped it before inspect", wantRan: []string{"contain", "record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &fakeEnv{effects: tt.effects, choices: tt.choices, answer: tt.answer}
			f := tt.flow
			f.Env = env
			ctx := context.Background()
			stop, err := f.Walk(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Finish(ctx, stop); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.wantStop == "" && stop != nil:
				t.Errorf("stopped: %+v", stop)
			case tt.wantStop != "" && (stop == nil || !strings.Contains(stop.Why, tt.wantStop)):
				t.Errorf("stop = %+v, want %q", stop, tt.wantStop)
			}
			if diff := cmp.Diff(tt.wantRan, env.ran); diff != "" {
				t.Errorf("steps run (-want +got):\n%s\n%s", diff, env.said.String())
			}
			if diff := cmp.Diff(tt.wantFix, env.fixes); diff != "" {
				t.Errorf("fixes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFlowRedriveRefusedStops(t *testing.T) {
	effects := verdicts(contain.NotAlive, classify.VerdictTransient, "")
	effects[StepRedrive] = func(*State) error { return fmt.Errorf("not confirmed: %w", errRefused) }
	env := &fakeEnv{effects: effects}
	f := Flow{Unattended: true, Env: env}
	stop, err := f.Walk(context.Background())
	if err != nil || stop == nil || !strings.HasPrefix(stop.Why, "redrive: not confirmed") {
		t.Fatalf("stop = %+v, err = %v", stop, err)
	}
	if strings.Contains(strings.Join(env.ran, " "), "verify") {
		t.Errorf("verify ran after a refused redrive: %v", env.ran)
	}
}

func TestStepLines(t *testing.T) {
	got := []string{Steps[0].Line(), Steps[5].Line(), Check.Line(), Record.Line()}
	want := []string{
		"step 1/7: contain — is the problem still alive?",
		"fix — what was changed before the redrive",
		"check — the safeguards that would have warned earlier",
		"step 7/7: record — what happened and what we learned",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("step lines (-want +got):\n%s", diff)
	}
}

// TestChangesNeverStopsTheRunbook: changes only reads, so a failure of its
// (no CloudTrail permission, say) is said and the runbook goes on.
func TestChangesNeverStopsTheRunbook(t *testing.T) {
	effects := verdicts(contain.NotAlive, classify.VerdictTransient, verify.Pass)
	effects[StepChanges] = func(*State) error { return errors.New("AccessDeniedException: cloudtrail:LookupEvents") }
	env := &fakeEnv{effects: effects}
	f := Flow{Unattended: true, Env: env}
	stop, err := f.Walk(context.Background())
	if err != nil || stop != nil {
		t.Fatalf("stop %+v, err %v: want the walk to go on", stop, err)
	}
	if !strings.Contains(strings.Join(env.ran, " "), "changes classify") || !strings.Contains(env.said.String(), "warning: changes could not read everything (AccessDeniedException") {
		t.Fatalf("ran %v, said:\n%s", env.ran, env.said.String())
	}
}
