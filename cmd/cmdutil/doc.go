// Package cmdutil is what mfdlq's commands share, and only that (gh's
// pkg/cmdutil is the model): the dependencies a command is given (Deps, the
// factory: IO streams, the clock, the lazy AWS clients, the incident
// directory), the typed errors and their exit statuses (ExitError,
// UsageErrorf, ExitCode, ReportError), output (PrintTable's table or
// tab-separated rows, PrintJSON, a streamed record's WriteJSONLine,
// Infof/Warnf on stderr), the one prompter every confirmation goes through
// (Prompter, Confirm), renamed flags' aliases and the flag helpers several
// commands bind (AddQueueFlag, StepRunE, NotifyFlag, GroupFlags' help).
//
// It holds no command and no step's work: a helper one command uses stays in
// that command's package; one that a step could decide without cobra goes to
// the step.
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
// # How to move a command out of package cmd
//
// Package cmd keeps, while commands move, the old names as aliases and thin
// wrappers of this package's (cmd/cmdutil_names.go), so a file not yet moved
// compiles unchanged. To move command x (one commit per command, tests green
// after each):
//
//  1. git mv cmd/x*.go cmd/x/ (the command's files and its unit tests; a
//     test that runs the whole binary or a testscript command stays in cmd).
//     Change the package clause to x.
//  2. Export the constructor: newXCmd(d *Deps, runF func(*xOptions) error)
//     becomes NewCmdX(d *cmdutil.Deps, runF func(*XOptions) error)
//     *cobra.Command (d, as in the house's command files: the body keeps
//     its lines), and xOptions becomes XOptions (its fields are what the
//     user typed, plus the unexported deps). RunE validates, then
//     `if runF != nil { return runF(opts) }` (cmdutil.StepRunE does this).
//  3. Spell cmd's old names as this package's: d.infof → d.Infof,
//     usageErrorf → cmdutil.UsageErrorf, tableData → cmdutil.TableData,
//     &exitError{…} → &cmdutil.ExitError{…}, ExitUsage → cmdutil.ExitUsage
//     (cmd/cmdutil_names.go lists them all). A helper of package cmd the
//     command still needs: if only x uses it, move it into cmd/x; if
//     several commands do, into cmdutil (shared plumbing) or the step (a
//     decision); never import cmd.
//  4. In cmd/root.go, call x.NewCmdX(&d.Deps, nil) where newXCmd(d, nil)
//     stood, at the same place in the tree (help groups and order are
//     cmd's). Delete the aliases nothing in cmd uses any more.
//  5. Tests: flag tests (argv → options or the exact error) pass a capturing
//     runF and need no local AWS (cmdtest.CheckParse); a test that needs it
//     gets a TestMain with localaws.Wrap (lazy: started by the first test
//     that asks). Helpers several packages' tests share go to cmd/cmdtest.
//     A test that runs the whole process (cmd's run or Main: exit codes,
//     global flags, --endpoint-url through a proxy) or several commands
//     stays in cmd.
//  6. go vet, go tool staticcheck ./cmd/..., the package's tests, and the
//     scripts that run x: grep -l 'mfdlq x' testdata/script/*.txtar, then
//     scripts/with-localaws.sh go test -count=1 -run 'TestScripts/<name>$'
//     ./cmd. Goldens stay byte-identical.
package cmdutil
