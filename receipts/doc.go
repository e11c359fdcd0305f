// Package receipts is the receive engine that export (archive) and the
// redrive mover share: what a reader of an SQS queue holds, what it let
// go of, and what a receive whose answer was lost may have hidden from it.
// Both used to keep this in maps and timestamps of their own, and a fix
// had to be made in both; now it is made here.
//
// # Words
//
//   - Table: a message's state in one run. seen (received once: a 62-bit
//     digest, 8 to 16 bytes), then held (a receipt handle, the latest: a
//     repeated receive rotates it and SQS acts only on the latest), then
//     parked (hidden on purpose until the run ends), owed (let go of
//     unfinished: it must come back) or deleting, then done (decided: a
//     digest flag again). Only held, parked and owed messages keep their
//     id and handle; the rest cost a digest, so a million messages fit in
//     16 MiB.
//   - Lost: the receives whose answer may have been lost after SQS
//     carried them out (MaybeCarriedOut): each may have hidden up to ten
//     messages until the visibility timeout. A reader never ends "done"
//     while such a message may come back; it waits (Lost.Until) and looks
//     again, at most a few times.
//   - Release and Delete: ChangeMessageVisibilityBatch to 0 and
//     DeleteMessageBatch, ten a call, with the latest handle.
//   - Clock: the one clock every wait above reads, injected (Fake in
//     tests), so no test sleeps for a visibility timeout. A test of many
//     goroutines (the mover's workers) runs in a testing/synctest bubble
//     instead, where System is fake and moves only when all of them wait.
//
// The name is the handles it keeps: internal/inflight is another thing,
// a stand-in for SQS's in-flight limit.
//
// Reading order: clock.go, table.go, lost.go, api.go, calls.go.
package receipts
