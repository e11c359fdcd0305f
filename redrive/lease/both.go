package lease

import (
	"context"
	"errors"
	"time"
)

// S3TagStore is the S3 lease that also holds the DLQ's queue tag: the
// object is the compare-and-swap, the tag is what a colleague's plain
// redrive (without --lease, which knows nothing of the bucket) reads, so
// it sees the holder and stops instead of running alongside. A tag held
// by a live run without --lease refuses this one too. Without tag
// permissions the S3 lease holds alone.
func S3TagStore(c S3, bucket, key string, tags Tags, url string) Store {
	return s3TagStore{s3: s3Store{c: c, bucket: bucket, key: key}, tags: tags, url: url}
}

type s3TagStore struct {
	s3   s3Store
	tags Tags
	url  string
}

// Current is the object's holder, else the tag's (a run without
// --lease).
func (s s3TagStore) Current(ctx context.Context) (Holder, bool, error) {
	h, ok, err := s.s3.Current(ctx)
	if err != nil || ok {
		return h, ok, err
	}
	h, ok, err = CurrentHolder(ctx, s.tags, s.url)
	if errors.Is(err, ErrNoTagging) {
		return Holder{}, false, nil
	}
	return h, ok, err
}

// Acquire takes the object, then the tag; when the tag is held (a live
// run without --lease, or one that won the tag at the same moment) it
// gives the object back and refuses.
func (s s3TagStore) Acquire(ctx context.Context, me Holder, takeOver bool, now func() time.Time) (Held, error) {
	obj, err := AcquireS3(ctx, s.s3.c, s.s3.bucket, s.s3.key, me, takeOver, now)
	if err != nil {
		return nil, err
	}
	tag, err := Acquire(ctx, s.tags, s.url, me, takeOver, now)
	switch {
	case err == nil:
		return bothLeases{obj: obj, tag: tag}, nil
	case errors.Is(err, ErrNoTagging):
		return obj, nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = obj.Release(rctx)
	return nil, err
}

func (s s3TagStore) Where() string { return s.s3.Where() + " and the queue tag " + Tag }

func (s s3TagStore) Guarantee() string {
	return s.s3.Guarantee() + "; the queue tag " + Tag + " says so to a redrive without --lease"
}

// bothLeases are the object and the tag of one run: renewed together,
// lost when either is taken over, released together.
type bothLeases struct {
	obj *S3Lease
	tag *Lease
}

func (b bothLeases) Keep(lost func(Holder), warn func(error)) {
	b.obj.Keep(lost, warn)
	b.tag.Keep(lost, warn)
}

func (b bothLeases) Release(ctx context.Context) error {
	return errors.Join(b.tag.Release(ctx), b.obj.Release(ctx))
}

// SetWaiting says so in both, from their next renewals.
func (b bothLeases) SetWaiting(w string) {
	b.obj.SetWaiting(w)
	b.tag.SetWaiting(w)
}
