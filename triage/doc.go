// Package triage runs the runbook's read-only first look at a DLQ in one
// pass: contain's measurement (step 1), a harmless peek (step 2, the peek
// inspect makes: VisibilityTimeout 5, never a delete), classify (step 3),
// the consumer's logs when their group is known or named by the Lambda
// mapping that reads the source, and, bounded, what changed. It never
// moves, deletes or tags a message and never changes a mapping, so it can
// run the minute a DLQ alarm fires (mfdlq triage, the Lambda handler, the
// MCP server's triage tool) and leave the answer in the incident.
//
// # Request
//
// What to look at and how far: the queue, contain's window, the peek's
// size, the log groups. Validate is the one check of its values: the
// command's flags, the Lambda's event and the MCP tool's input all go
// through it.
//
// # Result
//
// The answer first: the verdict, whether the problem is alive, how many
// messages the DLQ holds, its groups and the next command; then what each
// part saw and what was skipped and why (Skipped). Its JSON is triage's
// --output json and triage.json in the incident.
//
// # Incident
//
// Each part writes what the step would: contain.json, samples.jsonl,
// logs.json, classification.json and changes.json, each with the step's
// event; then triage.json and a triage event. A later classify, logs or
// redrive on a laptop continues from them.
//
// Reading order: request.go, triage.go (Run), parts.go, result.go.
package triage
