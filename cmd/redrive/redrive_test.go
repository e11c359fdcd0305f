package redrive

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/health"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/mover"
	"github.com/mfdlq/mfdlq/selection"
	"github.com/mfdlq/mfdlq/sqsapi"
)

func TestRedriveFlags(t *testing.T) {
	tests := []struct {
		argv    string
		want    *RedriveOptions
		wantErr string
	}{
		{argv: "--queue q --rate 10", want: &RedriveOptions{Queue: "q", Request: redrivestep.Request{RateText: "10", Rate: 10, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--queue q --rate max --workers 4 --max 50 --keep --canary 0 --yes --to other",
			want: &RedriveOptions{Queue: "q", Yes: true, Request: redrivestep.Request{To: "other", RateText: "max", Rate: 0, Workers: 4, Selection: selection.Selection{Max: 50}, Keep: true, Canary: 0, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--queue q --rate 10 --filter .Body.version==2 --sent-after 2025-03-02T03:00:00Z --sent-before 2025-03-02T04:00:00Z --group g1",
			want: &RedriveOptions{Queue: "q", Request: redrivestep.Request{RateText: "10", Rate: 10, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp,
				Selection: selection.Selection{Filter: ".Body.version==2", SentAfter: "2025-03-02T03:00:00Z", SentBefore: "2025-03-02T04:00:00Z", Group: "g1"}}}},
		{argv: "--queue q --rate 10 --no-stamp", want: &RedriveOptions{Queue: "q", Request: redrivestep.Request{RateText: "10", Rate: 10, NoStamp: true, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--queue q --rate 20 --native", want: &RedriveOptions{Queue: "q", Request: redrivestep.Request{RateText: "20", Rate: 20, Native: true, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--rate 10", wantErr: "--queue is required: the DLQ's name, URL or ARN"},
		{argv: "--queue q", wantErr: "--rate is required: messages per second (e.g. --rate 10) or --rate max"},
		{argv: "--queue q --rate 0", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "0"`},
		{argv: "--queue q --rate fast", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "fast"`},
		{argv: "--queue q --rate inf", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "inf"`},
		{argv: "--queue q --rate +Inf", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "+Inf"`},
		{argv: "--queue q --rate nan", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "nan"`},
		{argv: "--queue q --rate 1e-9", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "1e-9"`},
		{argv: "--queue q --rate 10001", wantErr: `--rate must be a number from 0.01 to 10000 messages per second, or max; got "10001"`},
		{argv: "--queue q --rate 0.01", want: &RedriveOptions{Queue: "q", Request: redrivestep.Request{RateText: "0.01", Rate: 0.01, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64, For: health.DefaultFor, GiveUp: health.DefaultGiveUp}}},
		{argv: "--queue q --rate max --native", wantErr: "--native needs a number: --rate 1 to 500 (SQS's MaxNumberOfMessagesPerSecond)"},
		{argv: "--queue q --rate 501 --native", wantErr: `--native: --rate must be a whole number from 1 to 500, got "501"`},
		{argv: "--queue q --rate 10 --workers 129", wantErr: "--workers must be between 1 and 128, got 129"},
		{argv: "--queue q --rate 10 --max-workers 0", wantErr: "--max-workers must be between 1 and 128, got 0"},
		{argv: "--queue q --rate 10 --visibility 5", wantErr: "--visibility must be between 10 and 43200 seconds, got 5"},
		{argv: "--queue q --rate 10 --sent-after yesterday", wantErr: `--sent-after "yesterday": use RFC 3339, e.g. 2025-03-02T03:00:00Z`},
		{argv: "--queue q --rate 10 --sent-after 2025-03-02T04:00:00Z --sent-before 2025-03-02T03:00:00Z", wantErr: "--sent-after must be before --sent-before"},
		{argv: "--queue q --rate 10 --filter .Body.version==", wantErr: `--filter ".Body.version==": unexpected EOF`},
		{argv: "--queue q --rate 10 --when-ok gateway-5xx,db-cpu,gateway-5xx --for 2m --give-up 1h",
			want: &RedriveOptions{Queue: "q", Request: redrivestep.Request{RateText: "10", Rate: 10, Canary: -1, MaxReturned: 10, Visibility: 30, MaxWorkers: 64,
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
			d := cmdutil.NewDeps(&cmdutil.IOStreams{}, nil)
			newCmd := func(runF func(*RedriveOptions) error) *cobra.Command { return NewCmdRedrive(d, runF) }
			if strings.Contains(tt.wantErr, "group [") {
				// cobra's flag groups: the root makes them exit 2 (cmd's run).
				if err := cmdtest.ParseWith(newCmd(nil), strings.Fields(tt.argv)); err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			var want RedriveOptions
			if tt.want != nil {
				want = *tt.want
			}
			cmdtest.CheckParse(t, newCmd, strings.Fields(tt.argv), want, tt.wantErr,
				cmp.AllowUnexported(RedriveOptions{}), cmpopts.IgnoreFields(RedriveOptions{}, "deps"), cmpopts.IgnoreUnexported(selection.Selection{}))
		})
	}
}

func TestRedriveFinish(t *testing.T) {
	d := cmdutil.NewDeps(&cmdutil.IOStreams{ErrOut: &strings.Builder{}}, nil)
	o := &RedriveOptions{deps: d}
	if err := o.outcomeError(&redrivestep.Plan{Source: redrivestep.Source{Queue: &sqsapi.Queue{Name: "orders-dlq"}}}, &redrivestep.Summary{Stats: statsOK(), Outcome: redrivestep.OutcomeInterrupted}); !errors.Is(err, cmdutil.ErrInterrupted) || cmdutil.ExitCode(err, true) != cmdutil.ExitInterrupted {
		t.Fatalf("cancelled: %v", err)
	}
	st := statsOK()
	st.Failed, st.LastError = 2, "AccessDenied"
	if err := o.outcomeError(&redrivestep.Plan{Source: redrivestep.Source{Queue: &sqsapi.Queue{Name: "orders-dlq"}}}, &redrivestep.Summary{Stats: st, Outcome: redrivestep.OutcomeFailed}); cmdutil.ExitCode(err, false) != cmdutil.ExitCheckFailed || !strings.Contains(err.Error(), "2 messages could not be moved") {
		t.Fatalf("failed: %v", err)
	}
	if err := o.outcomeError(&redrivestep.Plan{Source: redrivestep.Source{Queue: &sqsapi.Queue{Name: "orders-dlq"}}}, &redrivestep.Summary{Stats: statsOK(), Outcome: redrivestep.OutcomeMoved}); err != nil {
		t.Fatalf("moved: %v", err)
	}
}

func statsOK() mover.Stats { return mover.Stats{Moved: 3} }
