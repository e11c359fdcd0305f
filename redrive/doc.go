// Package redrive is step 5 of an incident: it moves a DLQ's messages back
// at a bounded rate, at least once, never losing one. The package holds the
// protocol — request → resolve → guard → run → summary — and imports its
// rooms, which never import it:
//
//   - redrive/mover: the engine (receive, send, journal, delete)
//   - redrive/journal: what was done to each message
//   - redrive/canary: the first few messages' proof
//   - redrive/movetask: SQS's own message move task (--native)
//   - redrive/consumer: the destination's Lambda consumers, a fix deployed
//   - redrive/window: the consumer's idempotency window
//   - redrive/sample: the harmless look at a DLQ's sources before a plan
//   - redrive/place: accounts, regions and the rules that keep a move home
//   - redrive/estimate: how long a move takes (the plan says it)
//   - redrive/target: destinations that are not queues
//   - redrive/retry: one retry layer
//   - redrive/lease: one run at a time
//   - redrive/provenance: the mfdlq-redrive stamp, who ran the move
//
// # Request
//
// A redrive as the operator asked for it: the flags (plan.go), checked
// before any AWS call by Validate and the Check methods that read flags
// together (request_flags.go). cmd/redrive's options embed it, so each
// flag is bound once. It is
// plain data: the selection is one value (package selection), the
// transform and the dedupe key are texts; the Plan holds them compiled
// (Select, Transform, Dedupe: compile.go).
//
// # Plan
//
// A request resolved against AWS (Resolve, resolve*.go): the Source, each
// Destination, the backlog and the bound, the canary and the workers. It is
// what the operator reads before saying yes, and Run carries out exactly
// it. A shared DLQ (shared_dlq.go) is one fed by several source queues, as
// its Sample (redrive/sample) shows: its plan sends each message back to
// its own source (PerSource) or, with --to, leaves the others' messages in
// the DLQ (Narrow). A replay (--from-file, file_*.go) sends each line to
// its recorded source, weighed against the operator's Home
// (redrive/place).
//
// # Guard
//
// The checks between the plan and the question (guard.go): the incident's
// Guardrails (guardrails.go: a poison group without a fix, a problem still
// alive), the fix deployed to the destination's consumer (guard.go, over
// redrive/consumer), a live consumer (consumer_live.go), a running move
// task (movetask_check.go, over redrive/movetask), a FIFO doubt, and the
// consumer's idempotency window (window.go, over redrive/window). A
// Refusal is one line naming the fix; --force passes.
//
// # Attempt and fix
//
// A fix is a recorded change (--fixed, a "fix" event); an attempt is the
// redrive after one fix (attempt.go). Messages that came back after one
// attempt may move again in the next.
//
// # Lease
//
// One operator at a time (lease.go, over redrive/lease): queue tags (a
// claim per run, announced then checked), or
// an S3 object with conditional writes. CheckLease looks before the
// question; Run holds and renews it for the whole move. A run that will
// not ask (--yes) takes it while Resolve and Guard read, so its read-back
// overlaps them (lease_early.go), and its mover receives during it, every
// batch held at a gate until the lease is confirmed and released at once
// if it is lost (moveGated); DropEarlyLease gives it back when Run does
// not follow.
//
// # Dry run
//
// ScanDryRun (dryrun.go) reads the plan's whole selection once, as an
// export without --delete reads a DLQ, and counts what --transform and
// --dedupe would do; nothing is written, every message is visible again.
//
// # Run and runner
//
// Run carries a plan out after the question (run.go): it takes the lease,
// records a new fix, and moves — with SQS's move task (redrive/movetask,
// run_follow.go) or with the mover, the canary first. A runner is one such
// carrying-out: its id in the journal and the lease, and its clocks.
//
// # Canary
//
// The first few messages moved before the rest (redrive/canary, built
// from the plan in run.go's canaryCheck): the run waits CanaryWait for the
// consumer to fail them back to the DLQ, then checks they left the
// destination (its depth on a quiet queue, CloudWatch on a live one) and
// that the DLQ's count proves nothing came back; any back, still there or
// not proven halts the run.
//
// # When OK
//
// --when-ok (whenok.go, over the health package): after the lease, the run
// waits until the dependency's CloudWatch alarms have been OK for --for
// (Env.WhenOK's Session: PlanWhenOK reads the alarms for the plan and
// builds it, whenok_plan.go; cmd/redrive draws its status line, WaitLog
// says when a log gets it again), and during the move a watch
// stops the sends when one leaves OK (the mover's context ends, as on
// Ctrl-C) and the run moves what is left after --for of OK again.
//
// # Mover, Journal, Target
//
// The mover (redrive/mover) receives, sends, journals and deletes, in that
// order; its Options are built from the plan in one place
// (mover_options.go). The journal (redrive/journal) records every step of
// every message in the incident directory, so running the same command
// again resumes a killed run without resending. A target (redrive/target)
// is a Lambda function, SNS topic or EventBridge bus the mover sends to in
// place of a queue.
// What the mover knows of each DLQ message — seen, held with its latest
// receipt handle, parked, owed, done — and what a lost receive may hide
// are the receive engine's (package receipts), which export shares.
//
// # Summary, Figures and events
//
// A run ends in a Summary (summary.go) with an Outcome; the incident's
// "redrive" event records its Inputs and Figures (figures.go), which the
// report and the next attempt read back with the same types. Env.NewEvent
// starts such an event; Moment is one progress line's figures (Line for
// JSON, Bar for a terminal: progress_bar.go). What the command says is
// written here and printed there: the plan's, a replay's and the
// summary's lines (HeadLines, Notes, MovedLines: end_lines.go,
// file_lines.go, outcome_line.go), and SortError sorts the protocol's
// errors for the exit status (error_kind.go).
//
// # Reading order
//
// plan.go (Request, Plan, Env), resolve.go, guard.go, run.go,
// mover_options.go, summary.go and figures.go; then the rooms:
// mover/mover.go, journal/journal.go, canary/check.go, target/entries.go,
// and the others as their names lead.
package redrive
