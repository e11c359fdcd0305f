package cmd

import (
	"github.com/mfdlq/mfdlq/redrive/mover"

	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/selection"
)

// sqs-holds QUEUE BODIES [ATTR=VALUE...] drains QUEUE and asserts it held
// each line of BODIES exactly once, each with the given string message
// attributes.
func cmdSQSHolds(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: sqs-holds QUEUE BODIES [ATTR=VALUE...]")
	}
	s := seeder(ts)
	ctx := context.Background()
	out, err := s.SQS.GetQueueUrl(ctx, getURL(args[0]))
	ts.Check(err)
	msgs, err := s.Drain(ctx, *out.QueueUrl)
	ts.Check(err)
	want := map[string]int{}
	n := 0
	for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if strings.TrimSpace(line) != "" {
			want[line]++
			n++
		}
	}
	for _, m := range msgs {
		body := aws.ToString(m.Body)
		if want[body] == 0 {
			ts.Fatalf("%s: body not expected or seen twice: %q", args[0], body)
		}
		want[body]--
		for _, a := range args[2:] {
			k, v, _ := strings.Cut(a, "=")
			got, ok := m.MessageAttributes[k]
			if !ok || aws.ToString(got.StringValue) != v || aws.ToString(got.DataType) != "String" {
				ts.Fatalf("%s: message %q lost attribute %s=%s (has %v)", args[0], body, k, v, m.MessageAttributes)
			}
		}
	}
	if len(msgs) != n {
		ts.Fatalf("%s: %d messages, want %d", args[0], len(msgs), n)
	}
}

func TestRedriveFlags(t *testing.T) {
	tests := []struct {
		argv    string
		want    *redriveOptions
		wantErr string
	}{
		{argv: "--queue q --rate 10", want: &redriveOptions{Queue: "q", Request: redrive.Request{RateText: "10", Rate: 10, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--queue q --rate max --workers 4 --max 50 --keep --canary 0 --yes --to other",
			want: &redriveOptions{Queue: "q", Yes: true, Request: redrive.Request{To: "other", RateText: "max", Rate: 0, Workers: 4, Selection: selection.Selection{Max: 50}, Keep: true, Canary: 0, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--queue q --rate 10 --filter .Body.version==2 --sent-after 2025-03-02T03:00:00Z --sent-before 2025-03-02T04:00:00Z --group g1",
			want: &redriveOptions{Queue: "q", Request: redrive.Request{RateText: "10", Rate: 10, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp,
				Selection: selection.Selection{Filter: ".Body.version==2", SentAfter: "2025-03-02T03:00:00Z", SentBefore: "2025-03-02T04:00:00Z", Group: "g1"}}}},
		{argv: "--queue q --rate 10 --no-stamp", want: &redriveOptions{Queue: "q", Request: redrive.Request{RateText: "10", Rate: 10, NoStamp: true, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--queue q --rate 20 --native", want: &redriveOptions{Queue: "q", Request: redrive.Request{RateText: "20", Rate: 20, Native: true, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--rate 10", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{argv: "--queue q", wantErr: "--rate is required: messages per second (e.g. --rate 10) or --rate max"},
		{argv: "--queue q --rate 0", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "0"`},
		{argv: "--queue q --rate fast", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "fast"`},
		{argv: "--queue q --rate inf", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "inf"`},
		{argv: "--queue q --rate +Inf", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "+Inf"`},
		{argv: "--queue q --rate nan", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "nan"`},
		{argv: "--queue q --rate 1e-9", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "1e-9"`},
		{argv: "--queue q --rate 10001", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "10001"`},
		{argv: "--queue q --rate 0.01", want: &redriveOptions{Queue: "q", Request: redrive.Request{RateText: "0.01", Rate: 0.01, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--queue q --rate max --native", wantErr: "--native needs a number: --rate 1 to 500 (SQS's MaxNumberOfMessagesPerSecond)"},
		{argv: "--queue q --rate 501 --native", wantErr: `--native: --rate must be a whole number from 1 to 500, got "501"`},
		{argv: "--queue q --rate 10 --workers 129", wantErr: "--workers must be between 1 and 128, got 129"},
		{argv: "--queue q --rate 10 --max-workers 0", wantErr: "--max-workers must be between 1 and 128, got 0"},
		{argv: "--queue q --rate 10 --visibility 5", wantErr: "--visibility must be between 10 and 43200 seconds, got 5"},
		{argv: "--queue q --rate 10 --sent-after yesterday", wantErr: `--sent-after "yesterday": use RFC 3339, e.g. 2025-03-02T03:00:00Z`},
		{argv: "--queue q --rate 10 --sent-after 2025-03-02T04:00:00Z --sent-before 2025-03-02T03:00:00Z", wantErr: "--sent-after must be before --sent-before"},
		{argv: "--queue q --rate 10 --filter .Body.version==", wantErr: `--filter ".Body.version==": unexpected EOF`},
		{argv: "--queue q --rate 10 --when-ok gateway-5xx,db-cpu,gateway-5xx --for 2m --give-up 1h",
			want: &redriveOptions{Queue: "q", Request: redrive.Request{RateText: "10", Rate: 10, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64,
				WhenOK: []string{"gateway-5xx", "db-cpu"}, For: 2 * time.Minute, GiveUp: time.Hour}, whenOKTimes: true}},
		{argv: "--queue q --rate 10 --for 2m", wantErr: "--for and --give-up go with --when-ok ALARM"},
		{argv: "--queue q --rate 10 --when-ok a --for 7h", wantErr: "--for 7h0m0s is longer than --give-up 6h0m0s: the wait could never end in OK"},
		{argv: "--queue q --rate 10 --when-ok a --for 0s", wantErr: "--for must be > 0 (e.g. --for 10m)"},
		{argv: "--queue q --rate 10 --when-ok a,,b", wantErr: "--when-ok: an alarm name is empty (ALARM[,ALARM…], a name holding a comma in double quotes)"},
		{argv: "--queue q --rate 10 --native --when-ok a", wantErr: "if any flags in the group [native when-ok] are set none of the others can be; [native when-ok] were all set"},
		{argv: "--queue q --rate 10 --native --keep", wantErr: "if any flags in the group [native keep] are set none of the others can be; [keep native] were all set"},
	}
	for _, tt := range tests {
		t.Run(tt.argv, func(t *testing.T) {
			var got *redriveOptions
			d := NewDeps(&IOStreams{}, nil)
			c := newRedriveCmd(d, func(o *redriveOptions) error { got = o; return nil })
			c.SetArgs(strings.Fields(tt.argv))
			c.SilenceErrors, c.SilenceUsage = true, true
			err := c.Execute()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if !strings.Contains(tt.wantErr, "group [") && exitCode(err, false) != ExitUsage {
					t.Fatalf("exit %d, want %d", exitCode(err, false), ExitUsage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.deps = nil
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(redriveOptions{}), cmpopts.IgnoreUnexported(selection.Selection{})); diff != "" {
				t.Fatalf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedriveFinish(t *testing.T) {
	d := NewDeps(&IOStreams{ErrOut: &strings.Builder{}}, nil)
	o := &redriveOptions{deps: d}
	if err := o.outcomeError(&redrive.Summary{Stats: statsOK(), Outcome: redrive.OutcomeInterrupted}); !errors.Is(err, errInterrupted) || exitCode(err, true) != ExitInterrupted {
		t.Fatalf("cancelled: %v", err)
	}
	st := statsOK()
	st.Failed, st.LastError = 2, "AccessDenied"
	if err := o.outcomeError(&redrive.Summary{Stats: st, Outcome: redrive.OutcomeFailed}); exitCode(err, false) != ExitCheckFailed || !strings.Contains(err.Error(), "2 messages could not be moved") {
		t.Fatalf("failed: %v", err)
	}
	if err := o.outcomeError(&redrive.Summary{Stats: statsOK(), Outcome: redrive.OutcomeMoved}); err != nil {
		t.Fatalf("moved: %v", err)
	}
}

func statsOK() mover.Stats { return mover.Stats{Moved: 3} }
