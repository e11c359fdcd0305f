package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// A run holding the S3 lease also holds the queue tag: a colleague's
// plain redrive (the tag lease) sees it and is refused; releasing gives
// back both. A DLQ whose tag a plain redrive holds refuses the S3 run,
// and its object is given back.
func TestS3TagStoreIsSeenByATagLease(t *testing.T) {
	ctx := context.Background()
	sq := sqsapi.New(localaws.Config(t))
	url, err := localaws.NewSeeder(localaws.Config(t)).CreateQueue(ctx, localaws.UniqueName("both"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, b := s3Bucket(t)
	store := S3TagStore(c, b, "k.lease", sq, url)
	held, err := store.Acquire(ctx, Me("alice", "r-s3", time.Now()), false, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok, err := CurrentHolder(ctx, sq, url); err != nil || !ok || h.Run != "r-s3" {
		t.Fatalf("the queue tag: %+v %v %v, want r-s3", h, ok, err)
	}
	var he *HeldError
	if _, err := TagStore(sq, url).Acquire(ctx, Me("bob", "r-plain", time.Now()), false, time.Now); !errors.As(err, &he) || he.Holder.Run != "r-s3" {
		t.Fatalf("a plain redrive: %v, want held by r-s3", err)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := CurrentHolder(ctx, sq, url); ok {
		t.Fatal("the tag is left after release")
	}
	if _, _, ok, _ := CurrentS3(ctx, c, b, "k.lease"); ok {
		t.Fatal("the object is left after release")
	}

	plain, err := TagStore(sq, url).Acquire(ctx, Me("bob", "r-plain", time.Now()), false, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok, err := store.Current(ctx); err != nil || !ok || h.Run != "r-plain" {
		t.Fatalf("the S3 store's Current: %+v %v %v, want the tag's r-plain", h, ok, err)
	}
	if _, err := store.Acquire(ctx, Me("alice", "r-s3", time.Now()), false, time.Now); !errors.As(err, &he) || he.Holder.Run != "r-plain" {
		t.Fatalf("the S3 run beside a plain one: %v, want held by r-plain", err)
	}
	if _, _, ok, _ := CurrentS3(ctx, c, b, "k.lease"); ok {
		t.Fatal("the refused S3 run left its object")
	}
	if err := plain.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
