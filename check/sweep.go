package check

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/lambdaapi"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// IDRedriveTarget is the safeguard check --all adds: a queue's redrive
// policy names a DLQ that exists. A policy left pointing at a deleted
// queue makes SQS keep receiving a failing message forever (or, since
// 2023, fail the move) — the DLQ the team thinks it has is not there.
const IDRedriveTarget = "redrive-target-exists"

// SweepLambda is the Lambda calls of a sweep, with the SDK's signatures.
type SweepLambda interface {
	lambdaapi.LambdaAPI
	lambdaapi.FunctionsAPI
}

// SweepClients are one account and region's read clients.
type SweepClients struct {
	SQS    sqsapi.ListingAPI // the sweep's only SQS calls are ReadListing's
	Alarms cwapi.AlarmsAPI
	Lambda SweepLambda
	// Metrics reads each DLQ's age of oldest message (nil: unknown), and
	// Store the idempotency stores the consumers name (StoreReader; nil:
	// each store is unknown): the consumer safeguards.
	Metrics cwapi.MetricsAPI
	Store   func(ctx context.Context, table string) StoreReading
}

// SweepOptions shape check --all in one account and region.
type SweepOptions struct {
	Prefix           string
	Concurrency      int // attribute reads and DLQs judged at once (default 8)
	SDKAttempts      int
	WorkflowAttempts int
	ReadTimeout      time.Duration
	Now              func() time.Time // the idempotency windows' and the DLQ age's clock
}

// Swept is one queue's result in a sweep: a DLQ with its sources'
// findings, or a source whose redrive policy names no DLQ that exists.
type Swept struct {
	Account string `json:"account"`
	Region  string `json:"region"`
	Result
}

// Sweep judges every DLQ of an account and region — every queue some
// redrive policy names, and every queue a Lambda function's
// DeadLetterConfig names — with check's safeguards, and every redrive
// policy whose DLQ is missing. It only reads. Warnings are what could not
// be read (CloudWatch, Lambda refused): those findings are warned as
// unknown, never passed.
func Sweep(ctx context.Context, c SweepClients, o SweepOptions) ([]Swept, []string, error) {
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	l, err := sqsapi.ReadListing(ctx, c.SQS, o.Prefix, o.Concurrency)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	async, err := lambdaapi.DeadLetterTargets(ctx, c.Lambda)
	if err != nil {
		if !sqsapi.IsUnsupportedOrDenied(err) {
			return nil, nil, err
		}
		warnings = append(warnings, "Lambda functions' dead-letter queues unknown: "+err.Error())
	}
	var out []Swept
	var dlqs []*sqsapi.Queue
	for _, q := range l.Queues {
		if p := q.RedrivePolicy; p != nil && l.ByARN[p.DeadLetterTargetArn] == nil {
			out = append(out, missingTarget(q, p.DeadLetterTargetArn, o.Prefix))
		}
		if l.Sources[q.ARN] != nil || async[q.ARN] != nil {
			dlqs = append(dlqs, q)
		}
	}
	alarms := ReadAlarms(ctx, c.Alarms)
	if alarms.Err != nil {
		warnings = append(warnings, "CloudWatch alarms unknown: "+alarms.Err.Error())
	}
	if alarms.Warning != "" {
		warnings = append(warnings, alarms.Warning)
	}
	judged, more := judgeAll(ctx, c, o, alarms, dlqs, l.Sources, async)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	out = append(out, judged...)
	SortSwept(out)
	return out, append(warnings, more...), nil
}

// judgeAll judges each DLQ, a few at a time (one alarm read each, one
// mapping read per source).
func judgeAll(ctx context.Context, c SweepClients, o SweepOptions, alarms AlarmReading, dlqs []*sqsapi.Queue, sources map[string][]*sqsapi.Queue, async map[string][]lambdaapi.AsyncFunction) ([]Swept, []string) {
	out := make([]Swept, len(dlqs))
	warns := make([][]string, len(dlqs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(o.Concurrency, 4, max(len(dlqs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				out[i], warns[i] = judge(ctx, c, o, alarms, dlqs[i], sources[dlqs[i].ARN], async[dlqs[i].ARN])
			}
		}()
	}
	for i := range dlqs {
		work <- i
	}
	close(work)
	wg.Wait()
	var all []string
	for _, w := range warns {
		all = append(all, w...)
	}
	return out, all
}

func judge(ctx context.Context, c SweepClients, o SweepOptions, alarms AlarmReading, dlq *sqsapi.Queue, srcs []*sqsapi.Queue, async []lambdaapi.AsyncFunction) (Swept, []string) {
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].Name < srcs[j].Name })
	in := CheckInput{DLQ: dlq, Sources: srcs, AsyncFunctions: async, SDKAttempts: o.SDKAttempts,
		WorkflowAttempts: o.WorkflowAttempts, ReadTimeout: o.ReadTimeout, Mappings: map[string][]lambdaapi.Mapping{}}
	var warns []string
	// Not verified is not a pass, and not proof of a missing alarm: the
	// listing's failure is warned once (Sweep) and each finding says so.
	alarms.Fill(&in)
	for _, src := range srcs {
		ms, err := lambdaapi.Mappings(ctx, c.Lambda, src.Name, src.ARN, int64(src.Visibility.Seconds()))
		if err != nil {
			warns = append(warns, fmt.Sprintf("Lambda mappings of %s unknown: %v", src.Name, err))
			continue // unknown, not absent
		}
		in.Mappings[src.Name] = ms
	}
	GatherConsumer(ctx, ConsumerReads{Metrics: c.Metrics, Store: c.Store, Now: o.Now}, &in)
	r := Result{Queue: dlq.Name, Findings: Findings(in)}
	r.Verdict = Worst(r.Findings)
	return Swept{Account: dlq.Account, Region: dlq.Region, Result: r}, warns
}

// missingTarget is the finding of a source whose DLQ was not listed: gone
// (fail), outside --prefix or in another account or region (skip: judge
// it where it lives).
func missingTarget(src *sqsapi.Queue, target, prefix string) Swept {
	f := Finding{ID: IDRedriveTarget, Queue: src.Name}
	parts := strings.Split(target, ":")
	switch {
	case len(parts) == 6 && (parts[3] != src.Region || parts[4] != src.Account):
		f.Status, f.Message = Skip, fmt.Sprintf("the DLQ %s is in account %s, region %s: run check --all there", parts[5], parts[4], parts[3])
	case prefix != "" && !strings.HasPrefix(sqsapi.NameFromARN(target), prefix):
		f.Status, f.Message = Skip, fmt.Sprintf("the DLQ %s is outside --prefix %s", sqsapi.NameFromARN(target), prefix)
	default:
		f.Status = Fail
		f.Message = fmt.Sprintf("the redrive policy names %s, which does not exist: failed messages have nowhere to go", target)
		f.Fix = fmt.Sprintf("create %s (retention 14 days), or point %s's RedrivePolicy at an existing DLQ", sqsapi.NameFromARN(target), src.Name)
	}
	r := Result{Queue: src.Name, Findings: []Finding{f}, Verdict: f.Status}
	return Swept{Account: src.Account, Region: src.Region, Result: r}
}

// SortSwept puts the failing queues first, then those warned, then the
// rest; by account, region and name within each.
func SortSwept(s []Swept) {
	rank := map[Status]int{Fail: 0, Warn: 1, Pass: 2, Skip: 3}
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if rank[a.Verdict] != rank[b.Verdict] {
			return rank[a.Verdict] < rank[b.Verdict]
		}
		if a.Account != b.Account {
			return a.Account < b.Account
		}
		if a.Region != b.Region {
			return a.Region < b.Region
		}
		return a.Queue < b.Queue
	})
}
