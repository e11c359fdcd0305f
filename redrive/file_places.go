package redrive

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mfdlq/mfdlq/redrive/place"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// OperatorHome asks STS who the credentials are. GetCallerIdentity needs
// no permission: a failure is the credentials' own.
func OperatorHome(ctx context.Context, env *Env) (place.Home, error) {
	if env.STS == nil {
		return place.Home{}, fmt.Errorf("no STS client: cannot tell the operator's account")
	}
	c, err := env.STS(ctx)
	if err != nil {
		return place.Home{}, err
	}
	id, err := provenance.WhoAmI(ctx, c)
	return place.Home{Place: place.Place{Account: id.Account, Region: env.Region}, Partition: cmp.Or(id.Partition, place.PartitionOf(env.Region))}, err
}

// CheckPlaces refuses, before anything is sent, a replay whose
// destinations leave the operator's account without --allow-account
// naming them: a file's recorded sources are data, and data never picks
// another account (docs/redrive.md).
func CheckPlaces(file string, h place.Home, dests []*sqsapi.Queue, allowAccounts []string) error {
	var accounts, names []string
	for _, q := range dests {
		if q.Account == h.Account || slices.Contains(allowAccounts, q.Account) {
			continue
		}
		if !slices.Contains(accounts, q.Account) {
			accounts = append(accounts, q.Account)
		}
		names = append(names, fmt.Sprintf("%s in account %s", q.Name, q.Account))
	}
	if len(names) == 0 {
		return nil
	}
	return &Refusal{Reason: fmt.Sprintf("--from-file %s sends to %s, outside your account %s: nothing was sent; if that is right pass --allow-account %s, else replay with --to QUEUE",
		file, strings.Join(names, ", "), h.Account, strings.Join(accounts, ","))}
}
