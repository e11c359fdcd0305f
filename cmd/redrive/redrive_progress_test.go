package redrive

import (
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	redrivestep "github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/redrive/mover"
)

// A message move task's total is 0 until SQS starts it: the bar says
// "starting", not 0/0; once the total is known it counts.
func TestRedriveProgressStarting(t *testing.T) {
	d, _, errOut := cmdtest.Deps(t, true)
	p := &redriveProgress{d: d, visibility: 30}
	p.update(redrivestep.Moment{Total: 0, Start: time.Now()})
	if got := errOut.String(); !strings.Contains(got, "starting") || strings.Contains(got, "0/0") {
		t.Fatalf("before the task starts: %q", got)
	}
	errOut.Reset()
	p.shown = time.Time{}
	p.update(redrivestep.Moment{Stats: mover.Stats{Moved: 5}, Total: 40, Start: time.Now()})
	if got := errOut.String(); !strings.Contains(got, "5/40") || strings.Contains(got, "starting") {
		t.Fatalf("once started: %q", got)
	}
}
