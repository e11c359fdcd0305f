// Package classify is step 3 of an incident: it decides whether the
// messages of a DLQ are poison, transient or data failures, groups them,
// and gives each group its evidence and next action. It is pure: messages
// in, groups and verdicts out; it imports no AWS client (only the SDK's
// retry classification of error codes, a table).
//
// # Message, envelope, payload
//
// A Message is an SQS message as exported (package sqsjson). Its envelope
// (package envelope: SNS, EventBridge, Lambda, S3, CloudEvents …) is read
// by one detector, which gives the payload — what is compared with a
// baseline — and the error the envelope carries (envelope.go).
//
// # Body scan, fingerprint and shape
//
// A body scan is what one pass over a payload reads: JSON or not, its
// sorted top-level keys, its schema-naming fields, the --key and --expect
// fields (bodyscan.go). The fingerprint writes it as text, after the
// envelope's kind (envelope.go). A Shape is one fingerprint among a set of
// messages with its drift from the baseline: Shapes (shapes.go) is
// inspect's summary, errors left out.
//
// # Error text and signature
//
// The error text is read from where a sender puts it, in one order
// (errortext.go: errorOf): the envelope's own error, then the table of
// senders' attributes, headers and payload fields (errorsources.go), then
// the payload fields signature.InBody reads, less those the healthy
// messages have too (errorbody.go: BodyErrors), then any attribute or
// field whose name says error (errorfallback.go). Its signature (package
// signature) keeps its kind and its codes and replaces what varies. The
// logs' signature for a MessageId (logs.json, Signatures) wins; one found
// for some messages applies to every message of their fingerprint
// (inferred.go).
//
// # Key and group
//
// A Key — fingerprint, signature, and on a shared DLQ the source queue —
// puts a message in a group (key.go, source.go). KeyVersion records the
// signature rules the keys were made with, so GroupOf reads an older
// classification's keys the old way. A group accumulates in fixed memory
// (classifier.go): arrivals (arrivals.go), payload sizes (timeouts.go),
// field profiles against the baseline (profile.go, drift.go, pattern.go),
// distinct counts (distinct.go).
//
// # Fact, meaning, verdict
//
// A fact is a typed code read from the error — an SQLSTATE (or a database
// server's fixed wording of one), an AWS error code, an HTTP status, a gRPC
// status, an errno name, a Lambda errorType, a Step Functions error name, a
// runtime's exception type, a MongoDB, Redis or Elasticsearch error —
// judged by a cited taxonomy (facts.go; dbfacts.go for the data stores'
// codes; statesfacts.go; taxonomies.go). A meaning is what the error
// says: its fact, else a phrase of errorMeanings (meaning.go). The
// Verdict of a group (verdict.go, decide) takes the content's proof first
// (evidence.go: --expect, the baseline, drift), then the meaning; a
// timeout is compared with healthy messages before it decides
// (timeouts.go); the timing (timing.go) decides only for verified
// content, and with no proof the verdict is unknown.
// DecidedBy names what decided.
//
// # Classification
//
// The result (result.go): groups by size, the DLQ's verdict, the evidence,
// written as classification.json and read back (Load, groupof.go) by
// redrive --group (GroupOf), a later classify, logs, changes and the
// report. Figures (figures.go) are the classify event's.
//
// Reading order: doc.go, result.go, classifier.go, verdict.go, facts.go,
// dbfacts.go and taxonomies.go, meaning.go, evidence.go, timing.go,
// timeouts.go, inferred.go; then the error text in its order (errortext.go,
// errorsources.go, errorbody.go, errorfallback.go); then the message's scan
// (envelope.go, bodyscan.go) and the baseline's profiles (baseline.go,
// profile.go, fields.go, drift.go, pattern.go).
package classify
