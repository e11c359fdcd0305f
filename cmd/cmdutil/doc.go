// Package cmdutil is what mfdlq's commands share, and only that (gh's
// pkg/cmdutil is the model): the dependencies a command is given (Deps, the
// factory: IO streams, the clock, the lazy AWS clients, the incident
// directory), the typed errors and their exit statuses (ExitError,
// UsageErrorf, ExitCode, ReportError), output (PrintTable's table or
// tab-separated rows, PrintJSON, a streamed record's WriteJSONLine,
// Infof/Warnf on stderr), the one prompter every confirmation goes through
// (Prompter, Confirm), renamed flags' aliases and the flag helpers several
// commands bind (AddQueueFlag, StepRunE, NotifyFlag).
//
// It holds no command and no step's work: a helper one command uses stays in
// that command's package; one that a step could decide without cobra goes to
// the step.
//
// Two pieces of step work stay here, each shared by several commands and
// with no step package that may hold it (internal/archtest): Samples
// (where a step's messages come from, the peek and its release: inspect,
// classify, logs, changes and browse; incident, which owns samples.jsonl,
// may import neither sqsapi nor sqsjson without passing the longest import
// chain) and ListFleet's notes and leases (ls and browse; the join of note
// and redrive/lease, two domain packages neither of which may import the
// other, nor inventory either).
//
// # The packages around it
//
//	cmd/            the root: Main, the command tree, help groups, typo
//	                suggestions, global flags, the testscript harness
//	cmd/<command>/  one command: NewCmdX(d, runF), its options, its run
//	                function and its unit tests
//	cmd/cmdutil/    this package
//	cmd/cmdtest/    helpers several commands' tests share (imported by
//	                tests only; internal/archtest refuses it in product code)
//
// A command package imports cmdutil and the steps, never cmd or another
// command (internal/archtest). A command that runs others (the runbook's
// steps) takes the runner as a parameter of its constructor, and cmd, which
// knows every command, gives it: NewCmdRunbook(d, steps, runF). browse's
// steps and mcp's tools run whole command lines through a Runner (cmd's
// root): NewCmdBrowse(d, exec, runF), NewCmdMCP(d, exec, runF).
//
// # Naming
//
// A command's package is named for its directory and its command
// (cmd/contain is package contain). When a step's package has the same name,
// the command imports the step as <name>step:
//
//	import containstep "github.com/mfdlq/mfdlq/contain"
//
// Every command does so, also where the step is imported only once.
//
// # A new command
//
// Every command has moved out of package cmd; cmd keeps no aliases of this
// package's names. A new command x:
//
//  1. cmd/x/x.go: NewCmdX(d *cmdutil.Deps, runF func(*XOptions) error)
//     *cobra.Command, its RunE cmdutil.StepRunE (validate, then runF or
//     the run). Flags several commands bind come from here (AddQueueFlag,
//     AddForceFlag, NotifyFlag); a helper only x uses stays in cmd/x, a
//     decision goes to the step; never import cmd.
//  2. cmd/root.go lists x.NewCmdX(d, nil) at its place in the runbook's
//     order (help groups and order are cmd's).
//  3. Flag tests (argv → options or the exact error) pass a capturing runF
//     and need no local AWS (cmdtest.CheckParse); a test that needs it gets
//     a TestMain with localaws.Wrap. A test that runs the whole process
//     (cmd's run or Main) or several commands stays in cmd.
package cmdutil
