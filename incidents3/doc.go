// Package incidents3 keeps incidents in S3, so that an incident the Lambda,
// a pipeline or a colleague began is continued on a laptop, and the other
// way round.
//
// # Location
//
// s3://bucket/prefix/ID: one incident, each file of its directory one
// object under prefix/ID/ (events.jsonl, classification.json …). IDs are
// incident directory names (orders-dlq-20261130T2104Z).
//
// # Copy
//
// A local working copy of one S3 incident: Pull brings the objects down
// into a directory with the local rules (0700 directory, 0600 files, no
// symlink followed, each object bounded), every step writes there as it
// writes a local incident, and Push writes back what changed. A hidden
// state file in the directory remembers each object's ETag at the pull.
//
// # Conditional writes
//
// Two writers never overwrite each other: every PUT is conditional, as
// the S3 lease's are (redrive/lease): If-None-Match: * for a file S3 did
// not hold at the pull, If-Match: its ETag otherwise. events.jsonl is
// append-only, so a lost condition is merged: the current object is read
// again and this copy's new lines are appended to it, until one write
// wins; no event is lost. Any other artifact that changed in S3 since the
// pull is a *ConflictError naming it: the newer S3 object stays, the local
// file is set aside as NAME.conflict-HASH (written beside it at the next
// push), and the next pull brings S3's.
//
// # Open incident and episodes
//
// The Lambda finds a DLQ's open incident through a pointer object
// (prefix/open/ACCOUNT/REGION/QUEUE), created with If-None-Match: * so
// that two alarms at once agree on one incident, and claims each alarm
// episode (prefix/episodes/HASH) the same way, so that a duplicated or
// repeated event starts no second triage; an incident's triage is claimed
// (prefix/triaging/ID) so that two episodes at once start one.
//
// Reading order: location.go, copy.go, events.go, open.go, list.go.
package incidents3
