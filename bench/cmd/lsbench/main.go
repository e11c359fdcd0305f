// Command lsbench measures mfdlq ls at scale against the local AWS in
// AWS_ENDPOINT_URL: it creates source/DLQ pairs under a fresh prefix in
// steps (by default 125, 250 and 500 pairs: up to 1,000 queues), lists them
// with the inventory package after each step, and prints the calls per
// operation and the time, so that the calls can be seen to grow linearly
// in queues and the metric reads in batches of 500 (docs/ls.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/inventory"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func main() {
	steps := flag.String("pairs", "125,250,500", "cumulative pair counts to list at")
	conc := flag.Int("concurrency", 8, "inventory concurrency")
	rounds := flag.Int("rounds", 3, "listings per step (the median is printed)")
	flag.Parse()
	if err := run(*steps, *conc, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "lsbench:", err)
		os.Exit(1)
	}
}

func run(steps string, conc, rounds int) error {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	s := localaws.NewSeeder(cfg)
	cw := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch)
	clients := inventory.Clients{SQS: sqsapi.New(cfg), Metrics: cw, Alarms: cw, Lambda: lambda.NewFromConfig(cfg)}
	prefix := localaws.UniqueName("lsb")
	made := 0
	fmt.Println("pairs\tqueues\tdlqs\tcalls\tlist_queues\tget_queue_attributes\tget_metric_data\tdescribe_alarms\tlist_event_source_mappings\tmedian_seconds")
	for _, f := range strings.Split(steps, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return err
		}
		if err := makePairs(ctx, s, prefix, made, n); err != nil {
			return err
		}
		made = n
		var times []time.Duration
		var inv *inventory.Inventory
		for range rounds {
			start := time.Now()
			inv, err = inventory.Take(ctx, clients, inventory.Options{Prefix: prefix, Concurrency: conc})
			if err != nil {
				return err
			}
			times = append(times, time.Since(start))
		}
		if len(inv.DLQs) != n {
			return fmt.Errorf("listed %d DLQs, want %d", len(inv.DLQs), n)
		}
		c := inv.Calls
		fmt.Printf("%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\n", n, 2*n, len(inv.DLQs), c.Total(), c.ListQueues,
			c.GetQueueAttributes, c.GetMetricData, c.DescribeAlarms, c.ListEventSourceMappings, median(times).Seconds())
	}
	return nil
}

// makePairs creates pairs from..to-1, eight at a time.
func makePairs(ctx context.Context, s *localaws.Seeder, prefix string, from, to int) error {
	errs := make([]error, to)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := from; i < to; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			name := fmt.Sprintf("%s-%04d", prefix, i)
			_, _, errs[i] = s.CreatePair(ctx, name, name+"-dlq", 3)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func median(d []time.Duration) time.Duration {
	for i := range d {
		for j := i + 1; j < len(d); j++ {
			if d[j] < d[i] {
				d[i], d[j] = d[j], d[i]
			}
		}
	}
	return d[len(d)/2]
}
