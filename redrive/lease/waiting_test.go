package lease

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// A run waiting on alarms says so in its lease tag (on moto): a second
// run is refused with the alarms named, and the word goes when the wait
// ends (the next renewal's write).
func TestLeaseSaysTheRunWaits(t *testing.T) {
	ctx := context.Background()
	c := sqsapi.New(localaws.Config(t))
	url, err := localaws.NewSeeder(localaws.Config(t)).CreateQueue(ctx, localaws.UniqueName("lease-wait"), nil)
	if err != nil {
		t.Fatal(err)
	}
	me := Me("alice", "r-1", time.Now())
	me.Waiting = WaitingOn([]string{"gateway-5xx", "db,cpu", "x"})
	l, err := Acquire(ctx, c, url, me, false, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	_, err = Acquire(ctx, c, url, Me("bob", "r-2", time.Now()), false, time.Now)
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.Waiting != "gateway-5xx+2" || !strings.HasSuffix(held.Holder.Describe(), ", waiting on alarms gateway-5xx+2") {
		t.Fatalf("second run: %v (holder %+v)", err, held)
	}
	l.SetWaiting("")
	if err := l.write(ctx); err != nil {
		t.Fatal(err)
	}
	if h, ok, err := CurrentHolder(ctx, c, url); err != nil || !ok || h.Waiting != "" || strings.Contains(h.String(), "waiting=") {
		t.Fatalf("after the wait: %+v %v %v", h, ok, err)
	}
}
