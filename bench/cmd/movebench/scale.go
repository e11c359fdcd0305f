package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mfdlq/mfdlq/bench/crashkill"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// fillScale creates a source/DLQ pair and puts n messages into the DLQ
// (crashkill.Fill: no bodies kept in memory).
func fillScale(s *localaws.Seeder, n int) (name, src, dlq string) {
	ctx := context.Background()
	name = localaws.UniqueName("scale")
	src, err := s.CreateQueue(ctx, name, nil)
	check(err)
	dlq, err = s.CreateQueue(ctx, name+"-dlq", nil)
	check(err)
	check(crashkill.Fill(ctx, s, dlq, n, map[string]string{"ErrorCode": "E", "Tenant": "acme"}))
	return name, src, dlq
}

func countDrain(c *sqs.Client, url string, n int) (lost, dups int) {
	lost, dups, err := crashkill.CountDrain(context.Background(), c, url, n, "Tenant", "acme")
	check(err)
	return lost, dups
}

const mib = 1 << 20

// dedupeTransformArgs are what -dedupe-transform adds to the scale run:
// the --dedupe --key … --transform … path (issue 46).
var dedupeTransformArgs = []string{"--dedupe", "--key", ".order_id", "--transform", ".version = 1"}

// originalsSize is ", originals N MiB" for the incident's originals file
// (compressed or not), "" when it has none.
func originalsSize(dir string) string {
	for _, name := range []string{"transform-originals.jsonl.gz", "transform-originals.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return fmt.Sprintf(", originals %s %.1f MiB", name, float64(st.Size())/mib)
		}
	}
	return ""
}

// scaleMode moves n messages at --rate max and, on a second queue of the
// same depth in the same run, the bare 32-worker loop; it prints the
// scale line of docs/redrive-figures.md: throughput beside the loop's, peak RSS,
// the incident directory and journal at the end, the RSS of a rerun that
// finds nothing to move, and that every body arrived.
func scaleMode(s *localaws.Seeder, client *sqs.Client) {
	// Each figure is printed as soon as it is known: a million-message run
	// takes long on a loaded machine.
	name, src, dlq := fillScale(s, *n)
	settle()
	dir, err := os.MkdirTemp("", "movebench-")
	check(err)
	lastIncident = dir
	args := []string{"redrive", "--queue", name + "-dlq", "--to", name, "--canary", "0", "--yes", "--incident", dir, "--rate", "max", "--quiet"}
	what := "mfdlq"
	if *dedupeTransform {
		// Every order_id is distinct (fill): the keys are all judged and
		// claimed, none left as a duplicate; the transform changes each
		// message, so every original is kept before its copy is sent.
		args = append(args, dedupeTransformArgs...)
		what = "mfdlq " + strings.Join(dedupeTransformArgs, " ")
	}
	if *scaleArgs != "" {
		args = append(args, strings.Fields(*scaleArgs)...)
		what += " " + *scaleArgs
	}
	el, rss := rusage(args)
	move := moveSeconds()
	fmt.Printf("scale %d: at most %d batches in flight, CPU %.1f s (%.0f µs a message)\n", *n, lastRedrive().PeakWorkers, lastCPU.Seconds(), float64(lastCPU.Microseconds())/float64(*n))
	journal, err := os.Stat(filepath.Join(dir, "redrive-journal.jsonl"))
	check(err)
	incident := crashkill.DirSize(dir)
	fmt.Printf("scale %d: %s %.0f msg/s whole process (move phase %.0f, load %s); peak RSS %.1f MiB; incident directory %.1f MiB (journal %.1f MiB%s)\n",
		*n, what, float64(*n)/el.Seconds(), float64(*n)/move, loadavg(), float64(rss)/1024, float64(incident)/mib, float64(journal.Size())/mib, originalsSize(dir))
	_, rerunRSS := rusage(args)
	fmt.Printf("scale %d: rerun finding nothing: peak RSS %.1f MiB\n", *n, float64(rerunRSS)/1024)
	lost, dups := countDrain(client, src, *n)
	left, _, _ := s.Depth(context.Background(), dlq)
	fmt.Printf("scale %d: lost %d, %d duplicate(s), %d left in the DLQ\n", *n, lost, dups, left)
	if lost > 0 || left > 0 {
		check(fmt.Errorf("scale: %d lost, %d left in the DLQ", lost, left))
	}
	_, bsrc, bdlq := fillScale(s, *n)
	settle()
	bare := bareLoop(client, bdlq, bsrc, *n, 32)
	tool, bareRate := float64(*n)/el.Seconds(), float64(*n)/bare.Seconds()
	fmt.Printf("scale: %d messages (load %s): "+what+" %.0f msg/s whole process (move phase %.0f), bare 32-worker loop %.0f msg/s: %.0f%% (move phase %.0f%%); peak RSS %.1f MiB; incident directory %.1f MiB (journal %.1f MiB); rerun finding nothing: peak RSS %.1f MiB; lost %d, %d duplicate(s), %d left in the DLQ\n",
		*n, loadavg(), tool, float64(*n)/move, bareRate, 100*tool/bareRate, 100*float64(*n)/move/bareRate,
		float64(rss)/1024, float64(incident)/mib, float64(journal.Size())/mib, float64(rerunRSS)/1024, lost, dups, left)
}

// exportMode exports n messages with --delete to a .jsonl.gz and, on a
// second queue of the same depth, runs the bare receive/write/delete loop
// (one receive at a time, as the export); it prints both rates, the
// export's peak RSS, and checks the file holds every body once and the DLQ
// is empty.
func exportMode(s *localaws.Seeder, client *sqs.Client) {
	name, _, dlq := fillScale(s, *n)
	_, _, bdlq := fillScale(s, *n)
	settle()
	dir, err := os.MkdirTemp("", "movebench-export-")
	check(err)
	lastIncident = dir
	out := filepath.Join(dir, "out.jsonl.gz")
	el, rss := rusage([]string{"export", "--queue", name + "-dlq", "--out", out, "--delete", "--yes", "--incident", filepath.Join(dir, "incident"), "--quiet"})
	lines, distinct := countFile(out, *n)
	left, inFlight, _ := s.Depth(context.Background(), dlq)
	bare := bareExport(client, bdlq, filepath.Join(dir, "bare.jsonl.gz"), *n)
	tool, bareRate := float64(*n)/el.Seconds(), float64(*n)/bare.Seconds()
	fmt.Printf("export: %d messages with --delete to .jsonl.gz (load %s): %.0f msg/s whole process, bare receive/write/delete loop %.0f msg/s: %.0f%%; peak RSS %.1f MiB; file %d lines, %d distinct bodies; DLQ %d visible, %d in flight\n",
		*n, loadavg(), tool, bareRate, 100*tool/bareRate, float64(rss)/1024, lines, distinct, left, inFlight)
	if distinct != *n || left+inFlight != 0 {
		check(fmt.Errorf("export: %d of %d bodies in the file, %d left in the DLQ", distinct, *n, left+inFlight))
	}
}

// countFile reads a .jsonl.gz export and counts its lines and distinct
// bodies.
func countFile(path string, n int) (lines, distinct int) {
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	check(err)
	seen := make([]bool, n)
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		lines++
		var m struct{ Body string }
		check(json.Unmarshal(sc.Bytes(), &m))
		var b struct {
			Order string `json:"order_id"`
		}
		json.Unmarshal([]byte(m.Body), &b)
		if k, err := strconv.Atoi(strings.TrimPrefix(b.Order, "o-")); err == nil && k < n && !seen[k] {
			seen[k] = true
			distinct++
		}
	}
	check(sc.Err())
	return lines, distinct
}

// bareExport is the floor of an export: receive 10, write them to a gzip
// file, delete them, one call at a time, no checks.
func bareExport(c *sqs.Client, from, path string, n int) time.Duration {
	f, err := os.Create(path)
	check(err)
	defer f.Close()
	gz := gzip.NewWriter(f)
	w := bufio.NewWriter(gz)
	start := time.Now()
	for got := 0; got < n; {
		out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(from), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
			VisibilityTimeout: 300, MessageAttributeNames: []string{"All"}, MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
		check(err)
		var del []types.DeleteMessageBatchRequestEntry
		for i, m := range out.Messages {
			b, _ := json.Marshal(sqsapi.FromSDK(m))
			w.Write(append(b, '\n'))
			del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
		if len(del) > 0 {
			_, err = c.DeleteMessageBatch(context.Background(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(from), Entries: del})
			check(err)
		}
		got += len(out.Messages)
	}
	check(w.Flush())
	check(gz.Close())
	check(f.Sync())
	return time.Since(start)
}
