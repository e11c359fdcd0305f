// Command crashkill SIGKILLs mfdlq redrive at random moments against the
// SQS server in AWS_ENDPOINT_URL and checks nothing is lost (`make bench`, BENCH=crash).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
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
	scale := flag.Bool("scale", false, "one move of -messages killed -runs times, each kill followed by a rerun (crashkill.Scale)")
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
	if *scale {
		runScale(awsCfg, cfg)
		return
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

func runScale(awsCfg aws.Config, cfg crashkill.Config) {
	fmt.Printf("crashkill -scale: one move of %d messages, %d SIGKILLs within %s of each run's start, seed %d\n", cfg.Messages, cfg.Runs, cfg.KillAfter, cfg.Seed)
	res, err := crashkill.Scale(context.Background(), localaws.NewSeeder(awsCfg), cfg)
	fmt.Printf("crashkill -scale: %d messages, %d kills mid-move, lost %d, %d duplicates (bound %d × %d = %d), %d left in the DLQ, journal at most %.1f MiB, incident directory at most %.1f MiB after a kill\n",
		cfg.Messages, res.Kills, res.Lost, res.Dups, res.Kills, cfg.Bound(), res.Kills*cfg.Bound(), res.Left, float64(res.MaxJournal)/(1<<20), float64(res.MaxIncident)/(1<<20))
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashkill: FAIL:", err)
		os.Exit(1)
	}
}
