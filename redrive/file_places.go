package redrive

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/redrive/provenance"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// Home is where the operator is: the account of the credentials in use
// (STS GetCallerIdentity), the region in use and their partition. A
// replay's recorded sources are data: each is weighed against it.
type Home struct {
	Place
	Partition string
}

// OperatorHome asks STS who the credentials are. GetCallerIdentity needs
// no permission: a failure is the credentials' own.
func OperatorHome(ctx context.Context, env *Env) (Home, error) {
	if env.STS == nil {
		return Home{}, fmt.Errorf("no STS client: cannot tell the operator's account")
	}
	c, err := env.STS(ctx)
	if err != nil {
		return Home{}, err
	}
	id, err := provenance.WhoAmI(ctx, c, env.Region)
	return Home{Place: Place{Account: id.Account, Region: env.Region}, Partition: id.Partition}, err
}

var (
	accountRE = regexp.MustCompile(`^[0-9]{12}$`)
	queueRE   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}(\.fifo)?$`)
	regionRE  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$`)
)

// ValidAccount checks an --allow-account.
func ValidAccount(s string) bool { return accountRE.MatchString(s) }

// sourceProblem says why a line's recorded source cannot be where it goes
// ("" when it is an SQS queue ARN of the operator's partition and region):
// a bare name, another partition's ARN or anything else is data that names
// no queue mfdlq may resolve for it; another region's queue is one this
// run's client cannot reach.
func sourceProblem(s string, h Home) string {
	a, err := arn.Parse(s)
	switch {
	case err != nil && !strings.Contains(s, ":"):
		return "a bare name, not a queue ARN"
	case err != nil:
		return "not an ARN"
	case a.Service != "sqs":
		return fmt.Sprintf("an ARN of service %q, not an SQS queue", a.Service)
	case a.Partition != h.Partition:
		return fmt.Sprintf("an ARN of partition %q, not this one (%s)", a.Partition, h.Partition)
	case !accountRE.MatchString(a.AccountID) || !regionRE.MatchString(a.Region) || !queueRE.MatchString(a.Resource):
		return "not a queue ARN (account, region or queue name malformed)"
	case a.Region != h.Region:
		// One run sends in one region: those lines wait for a run there.
		return fmt.Sprintf("in region %s, not the region in use (%s): replay the file again with --region %s for them", a.Region, h.Region, a.Region)
	}
	return ""
}

// FileRefused is a recorded source refused before the replay: its lines
// stay in the file, unsent.
type FileRefused struct {
	Source string // as recorded (data: sanitise before showing)
	Lines  int
	Reason string
}

// Line is the plan's line for r.
func (r FileRefused) Line() string {
	return fmt.Sprintf("refused: %s recording source %q (%s): left in the file; replay them with --to QUEUE if you know where they belong",
		plural.Of(r.Lines, "line"), shortSource(r.Source), r.Reason)
}

func shortSource(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// PlaceLines name every destination's account and region, for the plan.
func PlaceLines(dests []*sqsapi.Queue, lines map[string]int) []string {
	out := make([]string, 0, len(dests))
	for _, q := range dests {
		l := fmt.Sprintf("destination: account %s · region %s · queue %s", q.Account, q.Region, q.Name)
		if n, ok := lines[q.ARN]; ok {
			l += fmt.Sprintf(" (%s)", plural.Of(n, "line"))
		}
		out = append(out, l)
	}
	return out
}

// CheckPlaces refuses, before anything is sent, a replay whose
// destinations leave the operator's account without --allow-account
// naming them: a file's recorded sources are data, and data never picks
// another account (docs/redrive.md).
func CheckPlaces(file string, h Home, dests []*sqsapi.Queue, allowAccounts []string) error {
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
