package cmd

import (
	"testing"

	"github.com/mfdlq/mfdlq/cmd/redrive"
	"github.com/mfdlq/mfdlq/cmd/runbook"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
)

// TestRateIsOneRule gives runbook and redrive the same --rate values: both
// accept the same ones and refuse the others with the same line, so the
// runbook never runs four steps to have its redrive step refuse a rate it
// accepted (--rate 20000 did).
func TestRateIsOneRule(t *testing.T) {
	for _, rate := range []string{"10", "0.01", "10000", "max", "2.5", "", "0", "20000", "10001", "0.001", "fast", "inf", "-1", "nan", "1e-9"} {
		t.Run(rate, func(t *testing.T) {
			d, _, _ := testDeps(t, false)
			var redriveRate float64
			redriveErr := parseWith(redrive.NewCmdRedrive(d, func(o *redrive.RedriveOptions) error { redriveRate = o.Rate; return nil }),
				[]string{"--queue", "q", "--rate", rate})
			runbookErr := parseWith(runbook.NewCmdRunbook(d, runbookStep, func(*runbook.RunbookOptions) error { return nil }),
				[]string{"--queue", "q", "--rate", rate})
			if (redriveErr == nil) != (runbookErr == nil) {
				t.Fatalf("redrive: %v; runbook: %v: one rule must decide both", redriveErr, runbookErr)
			}
			if redriveErr != nil {
				checkUsageErr(t, runbookErr, redriveErr.Error())
				return
			}
			want, err := redrivestep.ParseRate(rate)
			if err != nil || redriveRate != want {
				t.Fatalf("redrive took --rate %s as %g, parseRate as %g (%v)", rate, redriveRate, want, err)
			}
		})
	}
}
