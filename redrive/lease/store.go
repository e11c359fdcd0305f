package lease

import (
	"context"
	"errors"
	"time"
)

// Held is a lease a run holds, of either kind: renewed by Keep while the
// run lives, given back by Release.
type Held interface {
	Keep(lost func(Holder), warn func(error))
	Release(ctx context.Context) error
	// SetWaiting says which alarms the run waits on (redrive --when-ok),
	// from the next renewal on.
	SetWaiting(w string)
}

var _ Held = (*Lease)(nil)

// Store is where a DLQ's lease lives: the DLQ's queue tag (the default:
// it needs nothing but the queue) or an S3 object (--lease s3://…, when
// the operator has a bucket for it).
type Store interface {
	// Current reads the holder; ok is false when none is set.
	Current(ctx context.Context) (h Holder, ok bool, err error)
	// Acquire takes the lease for me: a *HeldError when another live run
	// holds it (unless takeOver) or won it at the same moment (Race).
	Acquire(ctx context.Context, me Holder, takeOver bool, now func() time.Time) (Held, error)
	// Where names the lease for a person.
	Where() string
	// Guarantee says what the lease guarantees, and what it does not.
	Guarantee() string
}

// TagStore is the lease as the DLQ's tag mfdlq-lease.
func TagStore(c Tags, url string) Store { return tagStore{c: c, url: url} }

type tagStore struct {
	c   Tags
	url string
}

func (s tagStore) Current(ctx context.Context) (Holder, bool, error) {
	return CurrentHolder(ctx, s.c, s.url)
}

func (s tagStore) Acquire(ctx context.Context, me Holder, takeOver bool, now func() time.Time) (Held, error) {
	l, err := Acquire(ctx, s.c, s.url, me, takeOver, now)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (s tagStore) Where() string { return "the queue tag " + Tag }

// Guarantee: a run goes on only if its read-back shows its own claim and
// no other run's (claims.go), so no rival's delay lets two runs go on;
// what is left is SQS's tag store, which documents no read-after-write:
// a tag it showed one run and hid from another for longer than Settle.
func (s tagStore) Guarantee() string {
	return "lease: the queue tag " + Tag + " and a claim tag per run keep a second mfdlq off this DLQ: a run goes on only if no other run's claim reads back beside its own, so two runs could both go on only if SQS showed one run a tag it hid from the other for over " + Settle.String() + " (SQS documents no read-after-write for tags; --lease s3://BUCKET/PREFIX is conditional)"
}

// s3Store is the lease as the object key in bucket, written conditionally.
type s3Store struct {
	c           S3
	bucket, key string
}

// Current reads the object; a 403 reads as no holder, which is safe
// because Acquire's conditional create then decides (S3 answers a read of
// an absent key with 403 to a caller without s3:ListBucket, which the
// documented policy does not grant).
func (s s3Store) Current(ctx context.Context) (Holder, bool, error) {
	h, _, ok, err := CurrentS3(ctx, s.c, s.bucket, s.key)
	if errors.Is(err, ErrUnreadable) {
		return Holder{}, false, nil
	}
	return h, ok, err
}

func (s s3Store) Acquire(ctx context.Context, me Holder, takeOver bool, now func() time.Time) (Held, error) {
	l, err := AcquireS3(ctx, s.c, s.bucket, s.key, me, takeOver, now)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (s s3Store) Where() string { return "s3://" + s.bucket + "/" + s.key }

func (s s3Store) Guarantee() string {
	return "lease: " + s.Where() + ", created only if absent and renewed only if unchanged (S3 conditional writes): of two runs exactly one holds it"
}
