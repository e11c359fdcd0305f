// Command crashkill SIGKILLs mfdlq redrive at random moments against the
// SQS server in AWS_ENDPOINT_URL and checks nothing is lost (`make bench`, BENCH=crash).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/mfdlq/mfdlq/bench/crashkill"
	"github.com/mfdlq/mfdlq/internal/localaws"
)

func main() {
	var cfg crashkill.Config
	flag.StringVar(&cfg.Bin, "bin", "bin/mfdlq", "the mfdlq binary")
	flag.IntVar(&cfg.Runs, "runs", 30, "kill/rerun cycles")
	flag.IntVar(&cfg.Messages, "messages", 200, "messages per run")
	flag.IntVar(&cfg.Workers, "workers", 0, "--workers of the redrive (0: its adaptive default)")
	flag.IntVar(&cfg.Visibility, "visibility", 10, "--visibility of the redrive")
	flag.DurationVar(&cfg.KillAfter, "kill-within", 3*time.Second, "kill at a random moment within this")
	flag.Uint64Var(&cfg.Seed, "seed", uint64(time.Now().UnixNano()), "random seed")
	flag.Parse()
	dir, err := os.MkdirTemp("", "mfdlq-crash-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	cfg.Dir, cfg.Log = dir, os.Stdout
	awsCfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("crashkill: %d runs of %d messages, %d workers, seed %d\n", cfg.Runs, cfg.Messages, cfg.Workers, cfg.Seed)
	res, err := crashkill.Run(context.Background(), localaws.NewSeeder(awsCfg), cfg)
	fmt.Printf("crashkill: %d runs, %d killed mid-move, lost %d, duplicates total %d, max per kill %d (bound %d)\n",
		res.Runs, res.KilledMidMove, res.Lost, res.Duplicates, res.MaxDuplicates, cfg.Bound())
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashkill: FAIL:", err)
		os.Exit(1)
	}
}
