package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/cwapi"
	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive/lease"
)

// question is one confirmation of mfdlq and how to see what it changes.
type question struct {
	name string
	// setup puts on the local AWS what the command acts on and returns
	// its command line (without --endpoint-url and --incident), the lines
	// typed before this question (earlier questions of the same run), and
	// changed, which tells whether the command changed AWS.
	setup func(t *testing.T, inc string) (argv, before []string, changed func(t *testing.T) bool)
	// asks are the words the question must hold: the queue or mapping and
	// what will change.
	asks func(argv []string) []string
}

// TestEveryQuestion drives every confirmation of mfdlq through the
// cmdutil.Prompter with yes, no, empty, end of input and garbage: only yes changes
// AWS; every other answer exits 3 with AWS as it was. A confirm that
// accepted any answer fails it.
func TestEveryQuestion(t *testing.T) {
	for _, q := range questions() {
		for _, a := range cmdtest.Answers {
			t.Run(q.name+"/"+a.Name, func(t *testing.T) {
				t.Parallel()
				inc := t.TempDir()
				argv, before, changed := q.setup(t, inc)
				d, _, errOut := testDeps(t, false)
				p := &cmdtest.FakePrompter{Typed: append(before, a.Typed...)}
				d.Prompt = p
				code := run(context.Background(), d, append(argv, "--endpoint-url", localaws.Endpoint(t), "--incident", inc))
				if len(p.Asked) != len(before)+1 {
					t.Fatalf("asked %q, want %d questions\nstderr:\n%s", p.Asked, len(before)+1, errOut)
				}
				for _, w := range q.asks(argv) {
					if last := p.Asked[len(p.Asked)-1]; !strings.Contains(last, w) {
						t.Errorf("question %q does not say %q", last, w)
					}
				}
				got := changed(t)
				if a.Proceed {
					if !got {
						t.Fatalf("answered %s: AWS unchanged (exit %d)\nstderr:\n%s", a.Name, code, errOut)
					}
					return
				}
				if code != cmdutil.ExitCheckFailed || !strings.Contains(errOut.String(), "mfdlq: "+a.Refusal+"\n") {
					t.Errorf("answered %s: exit %d, want 3 and %q\nstderr:\n%s", a.Name, code, a.Refusal, errOut)
				}
				if got {
					t.Errorf("answered %s: AWS changed", a.Name)
				}
			})
		}
	}
}

func questions() []question {
	queueNamed := func(argv []string) []string { return []string{argv[2]} }
	return []question{
		{name: "redrive", setup: askRedrive(false), asks: func(argv []string) []string {
			return []string{"Move up to 3 messages from " + argv[2] + " to " + strings.TrimSuffix(argv[2], "-dlq") + "?"}
		}},
		{name: "take-over", setup: askRedrive(true), asks: func(argv []string) []string {
			return []string{"Take over " + argv[2] + " from alice on laptop", "r-other", "Only if that run died"}
		}},
		{name: "export-delete", setup: askExport, asks: func(argv []string) []string {
			return []string{"Export " + argv[2] + " to " + argv[4] + " and then delete the exported messages from it?"}
		}},
		{name: "contain-pause", setup: askMapping("--pause-mapping"), asks: mappingNamed("pausing")},
		{name: "contain-cap", setup: askMapping("--cap-concurrency", "5"), asks: mappingNamed("capping")},
		{name: "contain-resume", setup: askMapping("--resume-mapping"), asks: mappingNamed("resuming")},
		{name: "check-alarm", setup: askAlarm, asks: func(argv []string) []string {
			return append(queueNamed(argv), "create alarm "+argv[2]+"-not-empty?")
		}},
	}
}

// askRedrive seeds a DLQ of 3; with takeOver, another run's live lease
// holds it and the run is asked twice: the move (answered yes), then the
// take-over.
func askRedrive(takeOver bool) func(*testing.T, string) ([]string, []string, func(*testing.T) bool) {
	return func(t *testing.T, _ string) ([]string, []string, func(*testing.T) bool) {
		s := localaws.NewSeeder(localaws.Config(t))
		name, src, dlq, _ := seedOrders(t, s, "ask", 3, nil)
		argv := []string{"redrive", "--queue", name + "-dlq", "--rate", "max", "--canary", "0"}
		var before []string
		if takeOver {
			now := time.Now().UTC()
			h := lease.Holder{Operator: "alice", Host: "laptop", PID: 4242, Run: "r-other", Since: now.Add(-time.Minute), Expires: now.Add(time.Hour)}
			if _, err := s.SQS.TagQueue(context.Background(), &sqs.TagQueueInput{QueueUrl: aws.String(dlq), Tags: map[string]string{lease.Tag: h.String()}}); err != nil {
				t.Fatal(err)
			}
			argv = append(argv, "--take-over")
			before = []string{"yes\n"}
		}
		return argv, before, func(t *testing.T) bool {
			moved := depth(t, s, src)
			if left := depth(t, s, dlq); moved+left != 3 {
				t.Errorf("%d moved + %d left, want 3", moved, left)
			}
			if takeOver && moved == 0 {
				tags, err := s.SQS.ListQueueTags(context.Background(), &sqs.ListQueueTagsInput{QueueUrl: aws.String(dlq)})
				if err != nil || !strings.Contains(tags.Tags[lease.Tag], "r-other") {
					t.Errorf("the other run's lease is gone (%v, %q)", err, tags.Tags[lease.Tag])
				}
			}
			return moved > 0
		}
	}
}

func askExport(t *testing.T, _ string) ([]string, []string, func(*testing.T) bool) {
	s := localaws.NewSeeder(localaws.Config(t))
	name, _, dlq, _ := seedOrders(t, s, "ask", 3, nil)
	out := filepath.Join(t.TempDir(), "dlq.jsonl")
	return []string{"export", "--queue", name + "-dlq", "--out", out, "--delete"}, nil, func(t *testing.T) bool {
		_, statErr := os.Stat(out)
		left := depth(t, s, dlq)
		if left == 3 && statErr == nil {
			t.Errorf("refused, yet %s was written", out)
		}
		return left < 3
	}
}

// askMapping creates a DLQ whose source a Lambda mapping reads. For
// --resume-mapping the incident first records a pause (made with --yes).
func askMapping(action ...string) func(*testing.T, string) ([]string, []string, func(*testing.T) bool) {
	return func(t *testing.T, inc string) ([]string, []string, func(*testing.T) bool) {
		ctx := context.Background()
		cfg := localaws.Config(t)
		s := localaws.NewSeeder(cfg)
		name := localaws.UniqueName("ask")
		src, _, err := s.CreatePair(ctx, name, name+"-dlq", 3)
		if err != nil {
			t.Fatal(err)
		}
		uuid := mapping(t, cfg, s, src, name+"-fn")
		// --sample 1s: an empty DLQ without CloudWatch points is sampled.
		argv := append([]string{"contain", "--queue", name + "-dlq", "--sample", "1s"}, action...)
		if action[0] == "--resume-mapping" {
			d, _, errOut := testDeps(t, false)
			if code := run(ctx, d, []string{"contain", "--queue", name + "-dlq", "--sample", "1s", "--pause-mapping", "--yes", "--endpoint-url", localaws.Endpoint(t), "--incident", inc}); code != cmdutil.ExitOK {
				t.Fatalf("pause: exit %d\n%s", code, errOut)
			}
		}
		l := lambda.NewFromConfig(cfg)
		state := func() string {
			m, err := l.GetEventSourceMapping(ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(uuid)})
			if err != nil {
				t.Fatal(err)
			}
			c := "none"
			if m.ScalingConfig != nil && m.ScalingConfig.MaximumConcurrency != nil {
				c = "cap"
			}
			return aws.ToString(m.State) + " " + c
		}
		initial := state()
		return argv, nil, func(t *testing.T) bool { return state() != initial }
	}
}

func mappingNamed(verb string) func(argv []string) []string {
	return func(argv []string) []string {
		return []string{verb + " mapping ", " of " + strings.TrimSuffix(argv[2], "-dlq") + "-fn?"}
	}
}

// mapping creates function fn and a mapping from the queue at url to it,
// and returns the mapping's UUID.
func mapping(t *testing.T, cfg aws.Config, s *localaws.Seeder, url, fn string) string {
	t.Helper()
	ctx := context.Background()
	fnARN, err := localaws.CreateFunction(ctx, cfg, fn, localaws.HandlerZip("None"))
	if err != nil {
		t.Fatal(err)
	}
	arn, err := s.Attribute(ctx, url, "QueueArn")
	if err != nil {
		t.Fatal(err)
	}
	m, err := lambda.NewFromConfig(cfg).CreateEventSourceMapping(ctx, &lambda.CreateEventSourceMappingInput{
		EventSourceArn: aws.String(arn), FunctionName: aws.String(fnARN), BatchSize: aws.Int32(10),
	})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(m.UUID)
}

func askAlarm(t *testing.T, _ string) ([]string, []string, func(*testing.T) bool) {
	cfg := localaws.Config(t)
	name := localaws.UniqueName("ask")
	if _, _, err := localaws.NewSeeder(cfg).CreatePair(context.Background(), name, name+"-dlq", 4); err != nil {
		t.Fatal(err)
	}
	argv := []string{"check", "--queue", name + "-dlq", "--create-alarm", "--topic", "arn:aws:sns:us-east-1:123456789012:oncall"}
	cw := cloudwatch.NewFromConfig(cfg, cwapi.ConfigureCloudWatch)
	return argv, nil, func(t *testing.T) bool {
		out, err := cw.DescribeAlarms(context.Background(), &cloudwatch.DescribeAlarmsInput{AlarmNames: []string{name + "-dlq-not-empty"}})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.MetricAlarms) > 0
	}
}

func depth(t *testing.T, s *localaws.Seeder, url string) int {
	t.Helper()
	v, f, err := s.Depth(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return v + f
}
