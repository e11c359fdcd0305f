package cmd

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/plural"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// lsOptions are the flags of mfdlq ls.
type lsOptions struct {
	deps           *Deps
	Regions        []string // the global --region, split on commas
	Prefix         string   // --prefix
	NonEmpty       bool     // --non-empty
	FailOnMessages bool     // --fail-on-messages
	Concurrency    int      // --concurrency
}

func newLsCmd(d *Deps, runF func(*lsOptions) error) *cobra.Command {
	opts := &lsOptions{deps: d}
	c := &cobra.Command{
		Use:   "ls [--region R[,R…]] [--prefix P] [--non-empty] [--fail-on-messages]",
		Short: "List every DLQ: depth, oldest message, when it expires, who reads the sources",
		Long: `List every dead-letter queue of the account in the region(s): every queue
that some queue's RedrivePolicy names. For each: visible and in-flight
messages, the age of the oldest (CloudWatch's ApproximateAgeOfOldestMessage,
"no data" when CloudWatch has none), its retention, when the oldest message
expires, the source queues, the Lambda functions reading them, whether an
alarm watches its depth, and whether the retention pitfall applies (the DLQ
keeps messages no longer than a source does).

The most urgent come first: DLQs holding messages, soonest expiry first;
empty ones last (hidden with --non-empty). A one-line summary follows the
table (on stderr when the output is piped).

What it changes in AWS: nothing. It never receives a message. --region
takes a comma-separated list. --output json is a contract (docs/ls.md).

Examples:
  mfdlq ls
  mfdlq ls --region eu-west-1,us-east-1 --non-empty
  mfdlq ls --prefix payments --output json --fail-on-messages   # cron, CI

Exit 3 with --fail-on-messages when any DLQ holds a message.
` + exitStatusHelp,
		Args: cobra.NoArgs,
		RunE: stepRunE(d, opts, opts.validate, nil, runF, runLs),
	}
	f := c.Flags()
	f.StringVar(&opts.Prefix, "prefix", "", "only queues whose names start with P")
	f.BoolVar(&opts.NonEmpty, "non-empty", false, "hide DLQs that hold no message")
	f.BoolVar(&opts.FailOnMessages, "fail-on-messages", false, "exit 3 when any DLQ holds a message (for cron and CI)")
	f.IntVar(&opts.Concurrency, "concurrency", 8, "queue attribute reads in flight at once (1-64)")
	return c
}

var regionRE = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

func (o *lsOptions) validate() error {
	o.Regions = nil
	if r := strings.TrimSpace(o.deps.Global.Region); r != "" {
		for _, one := range strings.Split(r, ",") {
			one = strings.TrimSpace(one)
			if !regionRE.MatchString(one) {
				return usageErrorf("--region %q: not a region name; use e.g. eu-west-1 or a comma-separated list", one)
			}
			o.Regions = append(o.Regions, one)
		}
	}
	switch {
	case o.Concurrency < 1 || o.Concurrency > 64:
		return usageErrorf("--concurrency must be between 1 and 64, got %d", o.Concurrency)
	case o.Prefix != "" && !regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`).MatchString(o.Prefix):
		return usageErrorf("--prefix %q: a queue name prefix is 1-80 letters, digits, - or _", o.Prefix)
	}
	return nil
}

// lsResult is ls's JSON contract (docs/ls.md).
type lsResult struct {
	Summary  inventory.Summary `json:"summary"`
	DLQs     []inventory.DLQ   `json:"dlqs"`
	Warnings []string          `json:"warnings"`
}

func runLs(ctx context.Context, o *lsOptions) error {
	d := o.deps
	regions := o.Regions
	if len(regions) == 0 {
		regions = []string{""}
	}
	res := lsResult{DLQs: []inventory.DLQ{}, Warnings: []string{}}
	for _, region := range regions {
		c, err := d.Inventory(ctx, region)
		if err != nil {
			return err
		}
		inv, err := inventory.Take(ctx, c, inventory.Options{Prefix: o.Prefix, Concurrency: o.Concurrency, Now: d.Now})
		if err != nil {
			return fmt.Errorf("ls%s: %w", inRegion(region), err)
		}
		res.DLQs = append(res.DLQs, inv.DLQs...)
		for _, w := range inv.Warnings {
			if region != "" {
				w = region + ": " + w
			}
			res.Warnings = append(res.Warnings, w)
		}
	}
	inventory.Sort(res.DLQs)
	res.Summary = inventory.Summarize(res.DLQs, d.Now())
	if o.NonEmpty {
		res.DLQs = nonEmpty(res.DLQs)
	}
	for _, w := range res.Warnings {
		d.warnf("%s", w)
	}
	if err := o.render(&res, len(regions) > 1); err != nil {
		return err
	}
	if o.FailOnMessages && res.Summary.NonEmpty > 0 {
		return checkFailedf("%s hold messages (--fail-on-messages)", plural.Of(res.Summary.NonEmpty, "DLQ", "DLQs"))
	}
	if first := firstNonEmpty(res.DLQs); first != nil {
		d.nextStep("mfdlq contain --queue %s", first.Queue)
	}
	return nil
}

func inRegion(region string) string {
	if region == "" {
		return ""
	}
	return " in " + region
}

func nonEmpty(dlqs []inventory.DLQ) []inventory.DLQ {
	out := []inventory.DLQ{}
	for _, q := range dlqs {
		if q.Total() > 0 {
			out = append(out, q)
		}
	}
	return out
}

func firstNonEmpty(dlqs []inventory.DLQ) *inventory.DLQ {
	if len(dlqs) > 0 && dlqs[0].Total() > 0 {
		return &dlqs[0]
	}
	return nil
}

// inventoryClients builds ls's clients for region, with the listing's
// generous retries (inventory.Retryer; docs/ls.md).
func inventoryClients(ctx context.Context, g *GlobalOptions, region string) (inventory.Clients, error) {
	cfg, err := loadConfig(ctx, g, region)
	if err != nil {
		return inventory.Clients{}, err
	}
	retryer := inventory.Retryer
	cw := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch, readWholeBody, func(o *cloudwatch.Options) { o.Retryer = retryer() })
	return inventory.Clients{
		SQS:     sqsapi.New(cfg, func(o *sqs.Options) { o.Retryer, o.RetryMaxAttempts = retryer(), 0 }),
		Metrics: cw,
		Alarms:  cw,
		Lambda:  lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.Retryer = retryer() }),
	}, nil
}
