// Package envelope sees through the wrappers AWS puts around a message
// before it lands in a dead-letter queue — an SNS notification, an
// EventBridge event, a Lambda asynchronous-invocation DLQ message, a Lambda
// on-failure destination record, an EventBridge target DLQ message, an S3
// event notification, a CloudEvent (structured or binary), an SQS Extended
// Client pointer to a payload offloaded to S3, a MassTransit or NServiceBus
// envelope — or the failure records AWS writes instead of the message (a
// stream event source's on-failure record, an IoT rule's error action) —
// and gives the payload inside, the error the wrapper carries and the
// fields that name where the message came from.
//
// Detection is strict: a kind is named only when several required keys are
// present with the value shapes AWS documents (docs/classify.md), never from
// one key, so an application body that happens to have a "Message" or a
// "detail" field stays raw. The package is pure: it imports no AWS package
// and nothing of mfdlq's but sqsjson.
//
// # Words
//
//   - Envelope: what Detect (or a Detector, for a --payload Path) found
//     around one message: its Kind, the payload inside, the error the
//     wrapper carries, and its Origin.
//   - Kind: the wrapper, one of the Kind* constants (the strings of
//     docs/classify.md and of JSON output); KindRaw is no wrapper.
//   - Payload: the application's own bytes inside the wrappers; for an
//     offloaded message, a Pointer to the object in S3, which a fetcher
//     may turn into Fetched bytes.
//   - Detached: a failure record that carries no payload (a stream's
//     on-failure record names a Batch: shard and sequence range).
//   - Origin: the fields that name where the message came from (topic,
//     bus and rule, function, bucket), for redrive's targets and reports.
//   - Document: one JSON document read once (readDoc) into the fields
//     detection needs, nested wrappers included (an SNS notification of
//     an S3 event).
//
// # Reading order
//
// envelope.go (Detect, Kind, Envelope), document.go (one JSON document's
// fields and the shapes that name a kind), origin.go, cloudevents.go,
// offload.go, failures.go (failure records, framework envelopes, a
// function's error document) and payload.go (the kinds with their own
// rules), path.go (a
// --payload Path, a jq subset) and scan.go (walking accepted JSON without
// allocating).
package envelope
