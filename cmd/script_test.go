package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/internal/demo/consumer"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/sqsjson"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/script")

// TestMain puts mfdlq (this binary) on PATH for the scripts and for the
// tests that run it as a process (mfdlqBinary). The local AWS starts on
// demand (localaws.WrapOnDemand): at the first test that asks for it or
// connects through the environment, so a flag test runs without moto.
//
// Most of this package's time is spent waiting: on visibility timeouts, a
// rate, a verify's settle, a killed run's messages coming back. So every
// test that talks to the local AWS and changes no process state calls
// t.Parallel, and `make test` runs them with a -parallel well above the
// two cores; the tests that set the environment (t.Setenv) or a package
// variable (nativePoll) stay sequential, and so run first.
func TestMain(m *testing.M) {
	testscript.Main(stateHome{localaws.WrapOnDemand(m)}, map[string]func(){
		"mfdlq":   func() { os.Exit(Main(os.Args[1:])) },
		"consume": consumeMain,
	})
}

// stateHome runs the tests with XDG_STATE_HOME in a directory of their
// own, so a step that finds or starts an incident in the per-user root
// (incident.DefaultRoot) never writes to the real home. Scripts get
// $WORK/state instead (runScripts).
type stateHome struct{ m testscript.TestingM }

func (s stateHome) Run() int {
	dir, err := os.MkdirTemp("", "mfdlq-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "state home:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_STATE_HOME", dir)
	return s.m.Run()
}

// TestScripts runs testdata/script/*.txtar: the real binary against the
// local AWS. Each script gets $Q, a unique queue-name prefix.
func TestScripts(t *testing.T) {
	t.Parallel()
	runScripts(t, "../testdata/script")
}

// TestSlowScripts runs testdata/slow/*.txtar, the scripts that wait for
// real time (a --rate 10 move of 340 messages, a live queue's traffic, a
// full-screen view in a pseudo-terminal, alarms flipping mid-move) or move
// thousands (a canary and verify on a DLQ of 2,500 and 1,205): `make slow`
// sets MFDLQ_SLOW=1,
// and .ci/run runs it after `make test`, which stays under 3 minutes.
func TestSlowScripts(t *testing.T) {
	slowOnly(t)
	t.Parallel()
	runScripts(t, "../testdata/slow")
}

// slowOnly skips a test outside make slow: the Go tests named TestSlow…
// stress the mover with real time (SIGKILLs at random moments and reruns,
// sixteen workers on FIFO groups behind the lock stand-in) and run beside
// the slow scripts, in CI after make test.
func slowOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("MFDLQ_SLOW") != "1" {
		t.Skip("MFDLQ_SLOW=1 runs the TestSlow… tests (make slow)")
	}
}

func runScripts(t *testing.T, dir string) {
	ep := localaws.Endpoint(t)
	scriptSeeder = localaws.NewSeeder(localaws.Config(t))
	fleetBase, scriptEndpoint = localaws.Config(t), ep
	testscript.Run(t, testscript.Params{
		Dir:           dir,
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			for k, v := range localaws.Env(ep) {
				env.Setenv(k, v)
			}
			env.Setenv("Q", localaws.UniqueName("t"))
			env.Setenv("NO_COLOR", "")
			// The per-user incidents go under the script's own directory.
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, "state"))
			return nil
		},
		Cmds: rejectNegation(scriptCmds, negationHandled...),
	})
}

// rejectNegation makes `! cmd` an error for every custom command but the
// ones named, which handle neg themselves: an assertion that ignored the
// `!` would pass whatever it found.
func rejectNegation(cmds map[string]func(*testscript.TestScript, bool, []string), handled ...string) map[string]func(*testscript.TestScript, bool, []string) {
	out := make(map[string]func(*testscript.TestScript, bool, []string), len(cmds))
	for name, f := range cmds {
		if slices.Contains(handled, name) {
			out[name] = f
			continue
		}
		out[name] = func(ts *testscript.TestScript, neg bool, args []string) {
			if neg {
				ts.Fatalf("%s does not support !: assert what should hold instead", name)
			}
			f(ts, neg, args)
		}
	}
	return out
}

// consumeMain is the script program `consume QUEUE ACCEPTMAX`, run in the
// background (`exec consume … &`): the demo's consumer of QUEUE, which
// deletes the messages whose version it understands (up to ACCEPTMAX) and
// lets the others fail, until the script ends and kills it.
func consumeMain() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: consume QUEUE ACCEPTMAX")
		os.Exit(2)
	}
	accept, err := strconv.Atoi(os.Args[2])
	ctx := context.Background()
	cfg, cfgErr := config.LoadDefaultConfig(ctx)
	if err != nil || cfgErr != nil {
		fmt.Fprintln(os.Stderr, "consume:", err, cfgErr)
		os.Exit(2)
	}
	c := sqs.NewFromConfig(cfg)
	u, err := c.GetQueueUrl(ctx, getURL(os.Args[1]))
	if err != nil {
		fmt.Fprintln(os.Stderr, "consume:", err)
		os.Exit(1)
	}
	cons := &consumer.Consumer{SQS: c, QueueURL: aws.ToString(u.QueueUrl), AcceptMax: accept, Log: os.Stderr}
	if _, err := cons.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "consume:", err)
		os.Exit(1)
	}
}

// What changes from run to run in a live queue's output: MessageIds and
// other UUIDs, RFC 3339 times, epoch milliseconds, the times a person
// reads ("2026-12-15 15:44 UTC").
var (
	scrubUUID  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	scrubTime  = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	scrubEpoch = regexp.MustCompile(`\b1\d{12}\b`)
	scrubHuman = regexp.MustCompile(`\b\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC\b`)
	scrubDigit = regexp.MustCompile(`\d`)
	scrubFrac  = regexp.MustCompile(`\.\d+`)
	scrubHex   = regexp.MustCompile(`[0-9a-f]`)
)

// scrub FROM TO writes FROM (a file, or stdout/stderr of the last command)
// to TO with what changes from run to run replaced by placeholders of the
// same length (a time's fraction always three digits) — UUIDs by x's,
// times and epoch milliseconds by 0's — so a golden file pins the layout
// and every other byte of a live queue's output.
//
// scrub FROM TO REGEXP... also replaces each match of each REGEXP by "…":
// what a script knows varies beyond those (a duration, a rate, progress
// frames whose number depends on timing), named in the script itself.
func cmdScrub(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: scrub FROM TO [REGEXP...]")
	}
	s := ts.ReadFile(args[0])
	for _, pat := range args[2:] {
		re, err := regexp.Compile(pat)
		ts.Check(err)
		s = re.ReplaceAllLiteralString(s, "…")
	}
	s = scrubUUID.ReplaceAllStringFunc(s, func(u string) string { return scrubHex.ReplaceAllString(u, "x") })
	s = scrubTime.ReplaceAllStringFunc(s, func(t string) string {
		// A time's fraction has as many digits as it needs (RFC 3339 with
		// trailing zeros trimmed): any fraction becomes ".000".
		t = scrubFrac.ReplaceAllString(t, ".000")
		return scrubDigit.ReplaceAllString(t, "0")
	})
	s = scrubEpoch.ReplaceAllStringFunc(s, func(e string) string { return scrubDigit.ReplaceAllString(e, "0") })
	s = scrubHuman.ReplaceAllStringFunc(s, func(t string) string { return scrubDigit.ReplaceAllString(t, "0") })
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(s), 0o600))
}

// exitcode N PROG ARGS... runs PROG and asserts its exact exit status; its
// stdout and stderr are kept for the next stdout/stderr assertions.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog args...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d\nstderr:\n%s", got, want, ts.ReadFile("stderr"))
	}
}

// scriptSeeder talks to the local AWS for the custom script commands;
// fleetBase and scriptEndpoint are its configuration and address (the
// fleet's commands assume roles from it).
var (
	scriptSeeder   *localaws.Seeder
	fleetBase      aws.Config
	scriptEndpoint string
)

func seeder(*testscript.TestScript) *localaws.Seeder { return scriptSeeder }

// sqs-pair SOURCE DLQ MAXRECEIVE creates a source queue redriving to a DLQ.
func cmdSQSPair(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: sqs-pair SOURCE DLQ MAXRECEIVE")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	_, _, err = seeder(ts).CreatePair(context.Background(), args[0], args[1], n)
	ts.Check(err)
}

// sqs-queue NAME [ATTR=VALUE...] creates a queue.
func cmdSQSQueue(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: sqs-queue NAME [ATTR=VALUE...]")
	}
	attrs := map[string]string{}
	for _, a := range args[1:] {
		k, v, _ := strings.Cut(a, "=")
		attrs[k] = v
	}
	_, err := seeder(ts).CreateQueue(context.Background(), args[0], attrs)
	ts.Check(err)
}

// sqs-send QUEUE FILE [ATTR=VALUE...] sends each non-empty line of FILE as
// one message body, with the given string message attributes.
func cmdSQSSend(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: sqs-send QUEUE FILE [ATTR=VALUE...]")
	}
	var bodies []string
	for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if strings.TrimSpace(line) != "" {
			bodies = append(bodies, line)
		}
	}
	attrs := map[string]string{}
	for _, a := range args[2:] {
		k, v, _ := strings.Cut(a, "=")
		attrs[k] = v
	}
	s := seeder(ts)
	url, err := s.CreateQueue(context.Background(), args[0], nil)
	ts.Check(err)
	ts.Check(s.Send(context.Background(), url, bodies, attrs))
}

// sqs-depth QUEUE VISIBLE [INFLIGHT] [WAIT] asserts a queue's depth,
// polling up to WAIT (a Go duration) for it to settle.
func cmdSQSDepth(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: sqs-depth QUEUE VISIBLE [INFLIGHT] [WAIT]")
	}
	wantVisible, err := strconv.Atoi(args[1])
	ts.Check(err)
	wantInFlight := -1
	if len(args) > 2 {
		wantInFlight, err = strconv.Atoi(args[2])
		ts.Check(err)
	}
	wait := time.Duration(0)
	if len(args) > 3 {
		wait, err = time.ParseDuration(args[3])
		ts.Check(err)
	}
	s := seeder(ts)
	ctx := context.Background()
	out, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	deadline := time.Now().Add(wait)
	for {
		v, f, err := s.Depth(ctx, *out.QueueUrl)
		ts.Check(err)
		ok := v == wantVisible && (wantInFlight < 0 || f == wantInFlight)
		if ok != neg {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s: %d visible, %d in flight; want %d visible, %d in flight (-1: any)", args[0], v, f, wantVisible, wantInFlight)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func getURL(name string) *sqs.GetQueueUrlInput {
	return &sqs.GetQueueUrlInput{QueueName: aws.String(name)}
}

// samples-match FILE BODIES asserts that the JSON Lines messages in FILE
// have distinct MessageIds and exactly the bodies of BODIES' lines,
// byte for byte, in any order.
func cmdSamplesMatch(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: samples-match FILE BODIES")
	}
	msgs, err := sqsjson.ReadAll(strings.NewReader(ts.ReadFile(args[0])))
	ts.Check(err)
	want := map[string]int{}
	n := 0
	for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if strings.TrimSpace(line) != "" {
			want[line]++
			n++
		}
	}
	ids := map[string]bool{}
	for _, m := range msgs {
		if ids[m.MessageId] {
			ts.Fatalf("MessageId %s twice", m.MessageId)
		}
		ids[m.MessageId] = true
		if want[m.Body] == 0 {
			ts.Fatalf("body not sent (or seen too often): %q", m.Body)
		}
		want[m.Body]--
	}
	if len(msgs) != n {
		ts.Fatalf("%d messages, want %d", len(msgs), n)
	}
}
