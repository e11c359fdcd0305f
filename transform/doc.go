// Package transform repairs messages on their way back from a dead-letter
// queue: a jq program (gojq, as --filter uses) rewrites each message's
// payload and, where it says so, its message attributes; every result is
// checked against what SQS accepts before anything is sent, and a preview
// shows the operator a redacted before/after of the first few.
//
// The package is pure: it imports no AWS package and neither redrive nor
// cmd. redrive runs a Program on each selected message and sends the
// Result; archive.Originals keeps the originals for the undo.
//
// # Words
//
//   - Program: the compiled --transform PROGRAM or --transform-file FILE.
//     It sees the payload as `.` (the payload envelope.Detect finds: an SNS
//     Message, an EventBridge detail, else the body; parsed when it is
//     JSON, a string when it is not), the message attributes as
//     $attributes ({NAME: {DataType, StringValue | BinaryValue}}, the SQS
//     API's shape, BinaryValue base64) and $message ({MessageId,
//     Attributes, Envelope: {kind}}). It outputs exactly one value: the new
//     payload. `set_attributes(f)`, as its last step, also replaces the
//     message attributes with `$attributes | f`.
//   - Result: what the program made of one message — Changed (a new body
//     and attributes, valid for SQS), Unchanged (sent byte for byte), or
//     Failed (a sanitised, bounded Reason; the message stays in the DLQ).
//     The timeout covers the whole of one message's work, and an output
//     over the destination's size fails before it is encoded; a message
//     cut short by the caller's context (Ctrl-C) is Interrupted, no
//     verdict.
//   - Limits: what a changed message must fit (size, attributes).
//   - Preview: the counts of Changed, Unchanged and Failed and the first
//     few before/after diffs, redacted and sanitised, its redactor
//     carrying what it learnt (redact.Redactor.Carry: a value redacted on
//     one side is redacted on the other under any name); Figures is its
//     typed record for the incident's events and the report.
//
// Reading order: program.go, apply.go, validate.go, preview.go, diff.go,
// plan.go.
package transform
