// Package idempotency reads a consumer's idempotency store: the DynamoDB
// table whose records let a consumer recognise a message it already
// processed, and the window for which it does (the records' expiry).
//
// # Store
//
// A table named by a consumer's environment (TableFromEnv: Powertools'
// POWERTOOLS_IDEMPOTENCY_TABLE, IDEMPOTENCY_TABLE, or any variable whose
// name holds IDEMPOTEN; TABLE_NAME, Java Powertools' example, only when the
// table's records look like Powertools': Trusted) or by the operator.
//
// # Window
//
// How long a completed record lives. Given by the operator, or estimated
// from the records ahead of now (Read: a Scan filtered on the expiry,
// paged and bounded, since expired records stay until TTL deletes them
// within about two days): the largest expiry ahead of now. A record
// written at t expires at t+window, so the estimate is a lower bound, the
// lower the longer the consumer has been idle.
//
// The package imports no step: redrive (the plan) and check (the
// safeguards) both read a store through it.
package idempotency
