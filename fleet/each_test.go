package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestEachBoundsAndIsolates opens 12 accounts with 3 workers: never more
// than 3 at once; the account that cannot be opened and the region that
// fails are Unreadables of their own, sorted; every other region is read.
func TestEachBoundsAndIsolates(t *testing.T) {
	var accounts []Account
	for i := range 12 {
		accounts = append(accounts, Account{ID: fmt.Sprintf("%012d", i)})
	}
	var inFlight, peak atomic.Int64
	open := func(ctx context.Context, a *Account) (aws.Config, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		if a.ID == "000000000004" {
			return aws.Config{}, errors.New("suspended")
		}
		return aws.Config{Region: "us-east-1"}, nil
	}
	var mu sync.Mutex
	read := map[string]bool{}
	bad := Each(context.Background(), accounts, []string{"eu-west-1", "us-east-1"}, 3, open, func(_ context.Context, s Scope) error {
		if s.Config.Region != s.Region {
			t.Errorf("scope %s has a configuration for %s", s.Region, s.Config.Region)
		}
		if s.Account.ID == "000000000007" && s.Region == "eu-west-1" {
			return errors.New("denied in eu-west-1")
		}
		mu.Lock()
		read[s.Account.ID+"/"+s.Region] = true
		mu.Unlock()
		return nil
	})
	if peak.Load() > 3 {
		t.Errorf("%d accounts opened at once, want at most 3", peak.Load())
	}
	want := []Unreadable{{Account: "000000000004", Code: "error", Reason: "suspended"},
		{Account: "000000000007", Region: "eu-west-1", Code: "error", Reason: "denied in eu-west-1"}}
	if fmt.Sprint(bad) != fmt.Sprint(want) {
		t.Errorf("unreadable %v, want %v", bad, want)
	}
	if len(read) != 21 { // 11 accounts × 2 regions, less 7's eu-west-1
		t.Errorf("%d scopes read, want 21", len(read))
	}
}
