package record

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mfdlq/mfdlq/cmd/cmdtest"
	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/incident"
)

// record interrupted at "What caused it?" writes no report and appends no
// event: a report of TODOs from an interrupted record is not one.
func TestRecordInterruptedWritesNothing(t *testing.T) {
	d, _, errOut := cmdtest.Deps(t, false)
	d.Global.Incident = copyIncident(t, "incident-partial")
	cmdtest.InterruptedIO(t, d.IO)
	o := &RecordOptions{deps: d, Out: filepath.Join(t.TempDir(), "r.md")}
	err := runRecord(t.Context(), o)
	if cmdutil.ExitCode(err, true) != cmdutil.ExitInterrupted {
		t.Fatalf("record = %v (exit %d), want exit 130", err, cmdutil.ExitCode(err, true))
	}
	if !strings.Contains(errOut.String(), "What caused it?") {
		t.Errorf("not asked; stderr:\n%s", errOut)
	}
	if _, err := os.Stat(o.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("report written: %v", err)
	}
	ws, _ := incident.Existing(d.Global.Incident)
	if _, ok, _ := ws.Latest("record"); ok {
		t.Error("a record event was appended")
	}
}
