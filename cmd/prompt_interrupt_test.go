package cmd

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mfdlq/mfdlq/incident"
)

// interruptedIO is a terminal nobody types on, whose Interrupt has
// closed: a Ctrl-C arrived while the question waited.
func interruptedIO(t *testing.T, s *IOStreams) {
	t.Helper()
	r, w := io.Pipe()
	t.Cleanup(func() { _ = w.Close() })
	stop := make(chan struct{})
	close(stop)
	s.In, s.InTTY, s.Interrupt = r, true, stop
}

// A question waiting for a line gives up on Ctrl-C: confirm's error exits
// 130 (not 3, a refusal) and says nothing changed.
func TestConfirmInterrupted(t *testing.T) {
	d, _, errOut := testDeps(t, false)
	interruptedIO(t, d.IO)
	err := d.confirm("Move up to 3 messages from a-dlq to a?", false)
	if code := exitCode(err, true); code != ExitInterrupted || err.Error() != "nothing changed: interrupted" {
		t.Fatalf("confirm = %v (exit %d), want \"nothing changed: interrupted\" and exit 130", err, code)
	}
	if !strings.Contains(errOut.String(), "[y/N]") {
		t.Errorf("the question was not asked: %q", errOut)
	}
}

// The line a read left pending when an interrupt came is the next
// question's: nothing typed ahead is lost.
func TestReadLineKeepsThePendingLine(t *testing.T) {
	r, w := io.Pipe()
	reading := make(chan struct{})
	stop := make(chan struct{})
	s := &IOStreams{In: &announcingReader{r: r, reading: reading}, Interrupt: stop}
	done := make(chan error)
	go func() { _, err := s.ReadLine(); done <- err }()
	<-reading // the read waits on the terminal
	close(stop)
	if err := <-done; !errors.Is(err, errInterrupted) {
		t.Fatalf("ReadLine after the interrupt = %v, want errInterrupted", err)
	}
	go func() { _, _ = w.Write([]byte("yes\n")) }()
	s.Interrupt = make(chan struct{})
	if line, err := s.ReadLine(); line != "yes\n" || err != nil {
		t.Errorf("the next ReadLine = %q, %v; want the pending line", line, err)
	}
}

// announcingReader closes reading at its first Read.
type announcingReader struct {
	r       io.Reader
	reading chan struct{}
	once    sync.Once
}

func (a *announcingReader) Read(p []byte) (int, error) {
	a.once.Do(func() { close(a.reading) })
	return a.r.Read(p)
}

// record interrupted at "What caused it?" writes no report and appends no
// event: a report of TODOs from an interrupted record is not one.
func TestRecordInterruptedWritesNothing(t *testing.T) {
	d, _, errOut := testDeps(t, false)
	d.Global.Incident = copyIncident(t, "incident-partial")
	interruptedIO(t, d.IO)
	o := &recordOptions{deps: d, Out: filepath.Join(t.TempDir(), "r.md")}
	err := runRecord(t.Context(), o)
	if exitCode(err, true) != ExitInterrupted {
		t.Fatalf("record = %v (exit %d), want exit 130", err, exitCode(err, true))
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
