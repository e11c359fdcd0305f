package browse

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// TestKeyWhileReadPending: while classify's read is still running, keys
// are answered at once (help opens and closes, the view goes back) and the
// late answer still lands.
func TestKeyWhileReadPending(t *testing.T) {
	f := &fake{block: make(chan struct{})}
	m := New(context.Background(), f, Options{Queue: "orders-dlq", NoTick: true, Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	msgs := make(chan tea.Msg, 8)
	batch, ok := m.Init()().(tea.BatchMsg)
	if !ok {
		t.Fatal("Init is not a batch of reads")
	}
	for _, c := range batch {
		go func() { msgs <- c() }()
	}
	if !strings.Contains(m.View(), "classify: peeking") {
		t.Fatalf("no sign of the pending read:\n%s", m.View())
	}
	for _, k := range []string{"?", "esc", "j", "/", "o", "enter"} {
		start := time.Now()
		m.Update(keyMsg(k))
		m.View()
		// The read blocks until f.block closes: a key that waited on it
		// would never return. How fast it returns is logged, not judged
		// (a timing bound flakes on a loaded machine).
		t.Logf("key %q with a read pending: %s", k, time.Since(start))
		if k == "?" && !strings.Contains(m.View(), "keys") {
			t.Errorf("? did not open the help while a read was pending:\n%s", m.View())
		}
	}
	close(f.block)
	deadline := time.After(2 * time.Minute)
	for m.dlq.cls.busy {
		select {
		case msg := <-msgs:
			m.Update(msg)
		case <-deadline:
			t.Fatal("classify's answer never arrived")
		}
	}
	m.filter = ""
	if !strings.Contains(m.View(), "g2") {
		t.Errorf("the late answer was not shown:\n%s", m.View())
	}
}

// TestRedriveQuestion: R, the flags, the plan and the command's question;
// no (n, esc, enter) moves nothing, y moves the group, ctrl+c stops.
func TestRedriveQuestion(t *testing.T) {
	for _, tc := range []struct {
		answer string
		moved  bool
		status string
	}{
		{"n", false, "nothing changed"},
		{"esc", false, "nothing changed"},
		{"enter", false, "nothing changed"},
		{"ctrl+c", false, "nothing changed"},
		{"y", true, "done: 96 moved"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			f := &fake{}
			m := newModel(t, f, Options{}, 80, 24)
			press(t, m, "enter", "enter", "R", "backspace")
			m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
			press(t, m, "m", "a", "x")
			waiting := press(t, m, "enter")
			if waiting == nil || m.modal == nil || m.modal.reply == nil {
				t.Fatalf("no question after the flags:\n%s", m.View())
			}
			if !strings.Contains(m.View(), "plan: move up to 96") || !strings.Contains(m.View(), "[y/N]") {
				t.Errorf("the plan and question are not shown:\n%s", m.View())
			}
			_, cmd := m.Update(keyMsg(tc.answer))
			drive(t, m, tea.Batch(cmd, waiting))
			if got := len(f.redriven) > 0; got != tc.moved {
				t.Errorf("answer %q: moved %v, want %v", tc.answer, got, tc.moved)
			}
			if !tc.moved && (m.modal == nil || !strings.Contains(strings.Join(m.modal.lines, " "), "nothing changed")) {
				t.Errorf("answer %q: the refusal is not shown whole:\n%s", tc.answer, m.View())
			}
			if !strings.Contains(m.status, tc.status) {
				t.Errorf("answer %q: status %q, want %q", tc.answer, m.status, tc.status)
			}
			if !strings.Contains(strings.Join(f.calls, "\n"), "redrive orders-dlq g1 --rate max") {
				t.Errorf("flags not passed: %q", f.calls)
			}
		})
	}
}

func TestRedriveFlagsRefused(t *testing.T) {
	for _, bad := range []string{"--rate 1 --yes", "--queue x --rate 1", "--incident=/tmp --rate 1", "--output json"} {
		if _, err := redriveFlags(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if f, err := redriveFlags(" --rate max  --canary 0 "); err != nil || strings.Join(f, ",") != "--rate,max,--canary,0" {
		t.Errorf("got %q, %v", f, err)
	}
}

// TestHostileBytesWithColour: with colour on, the frame carries our own
// escape codes but none of the body's, log's or attribute's.
func TestHostileBytesWithColour(t *testing.T) {
	m := newModel(t, &fake{}, Options{Color: true}, 160, 50)
	for _, keys := range [][]string{nil, {"enter"}, {"enter"}, {"enter"}, {"l"}, {"x"}} {
		press(t, m, keys...)
		frame := m.View()
		for _, bad := range []string{"\x1b[31mEVIL", "\x1b]0;", "\x07", "\u202e", "\x1b[2J", "\x1b[31munsupported"} {
			if strings.Contains(frame, bad) {
				t.Errorf("after %q the frame holds %q raw", keys, bad)
			}
		}
	}
	if !strings.Contains(m.View(), "[redacted:email]") || strings.Contains(m.View(), "ann@example.com") {
		t.Errorf("x did not redact the body:\n%s", m.View())
	}
}

func TestFilterAndResize(t *testing.T) {
	m := newModel(t, &fake{}, Options{}, 80, 24)
	press(t, m, "/", "p", "a", "y", "enter")
	frame := m.View()
	if !strings.Contains(frame, "payments-dlq") || strings.Contains(frame, "orders-dlq") {
		t.Errorf("filter pay:\n%s", frame)
	}
	press(t, m, "enter")
	if m.dlq.queue != "payments-dlq" {
		t.Errorf("enter on the filtered row opened %q", m.dlq.queue)
	}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	checkFrame(t, m.View(), 100, 30)
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 10})
	checkFrame(t, m.View(), 40, 10)
	press(t, m, "esc", "q")
}

// TestRefreshTick: the fleet is read again on its timer and on r.
func TestRefreshTick(t *testing.T) {
	f := &fake{}
	m := newModel(t, f, Options{}, 80, 24)
	_, cmd := m.Update(tickMsg{})
	if cmd == nil {
		t.Fatal("the tick started nothing")
	}
	press(t, m, "r")
	n := 0
	for _, c := range f.calls {
		if c == "fleet" {
			n++
		}
	}
	if n < 2 {
		t.Errorf("fleet read %d times after r", n)
	}
	press(t, m, "enter", "enter", "r")
	if calls := strings.Join(f.calls, "\n"); !strings.Contains(calls, "g1 fresh=false") || !strings.Contains(calls, "g1 fresh=true") {
		t.Errorf("enter should read the sample, r peek anew: %s", calls)
	}
	if !strings.Contains(m.View(), "of a new peek") {
		t.Errorf("the group does not say where its messages come from:\n%s", m.View())
	}
}

// TestKeysInOneRead: "jR" read at once is j, then R.
func TestKeysInOneRead(t *testing.T) {
	m := newModel(t, &fake{}, Options{Queue: "orders-dlq"}, 80, 24)
	press(t, m, "jR")
	if m.modal == nil || m.modal.input == nil || !strings.Contains(m.modal.title, "g2") {
		t.Fatalf("jR did not open the redrive of g2:\n%s", m.View())
	}
}

// TestStopRunningAction: esc during a confirmed move cancels its context,
// as Ctrl-C stops the command; a second action cannot start meanwhile.
func TestStopRunningAction(t *testing.T) {
	f := &fake{hold: true}
	m := newModel(t, f, Options{Queue: "orders-dlq"}, 80, 24)
	press(t, m, "R")
	waiting := press(t, m, "enter")
	m.Update(keyMsg("y"))
	// The move runs: its progress reaches the status line.
	_, next := m.Update(run(t, waiting))
	if m.action == nil || !strings.Contains(m.status, "12/96 moved") {
		t.Fatalf("no running action with its progress: %q", m.status)
	}
	press(t, m, "e")
	if !strings.Contains(m.status, "is running") {
		t.Errorf("a second action started: %q", m.status)
	}
	if _, cmd := m.Update(keyMsg("q")); cmd != nil || !strings.Contains(m.status, "stops it first") {
		t.Errorf("q quit in the middle of a move: %q", m.status)
	}
	if m.Wait(50 * time.Millisecond) {
		t.Error("Wait returned while the move ran")
	}
	m.Update(keyMsg("esc"))
	m.Update(run(t, next))
	if m.action != nil || !strings.Contains(m.status, "interrupted") {
		t.Errorf("esc did not stop the move: %q", m.status)
	}
	if !m.Wait(time.Second) {
		t.Error("Wait did not see the stopped move end")
	}
}

func TestExportAndCommandLines(t *testing.T) {
	f := &fake{}
	m := newModel(t, f, Options{Queue: "orders-dlq"}, 80, 24)
	press(t, m, "e")
	if !strings.Contains(m.status, "export: exported 340") {
		t.Errorf("export status %q", m.status)
	}
	press(t, m, "c")
	if m.modal == nil || !strings.Contains(m.View(), "mfdlq redrive --queue orders-dlq --group g1") {
		t.Errorf("c shows no command line:\n%s", m.View())
	}
	press(t, m, "esc", "enter", "enter", "i")
	if !strings.Contains(m.View(), "5e0c2a44-8d1b-4f0e-9c3a-1b2c3d4e5f60") || m.modal == nil {
		t.Errorf("i shows no MessageId:\n%s", m.View())
	}
}

// TestLongPlanKeepsTheQuestionInView: a plan taller than an 80×24
// terminal opens on its end, the question; k scrolls up to its first line
// and j back down.
func TestLongPlanKeepsTheQuestionInView(t *testing.T) {
	m := newModel(t, &fake{}, Options{}, 80, 24)
	plan := []string{"redriving: account 123456789012 · region us-east-1 · queue orders-dlq"}
	for i := range 30 {
		plan = append(plan, fmt.Sprintf("plan: line %d", i))
	}
	m.modal = &modal{title: "redrive", lines: append(plan, "", "Move 96 messages? [y/N]"), reply: make(chan bool, 1)}
	if v := m.View(); !strings.Contains(v, "[y/N]") || strings.Contains(v, "redriving: account") {
		t.Fatalf("the question is not in view, or the plan's start is (no room for both):\n%s", v)
	}
	for range 40 {
		press(t, m, "k")
	}
	if v := m.View(); !strings.Contains(v, "redriving: account") || strings.Contains(v, "[y/N]") {
		t.Fatalf("k does not scroll up to the plan's first line:\n%s", v)
	}
	for range 40 {
		press(t, m, "j")
	}
	if v := m.View(); !strings.Contains(v, "[y/N]") {
		t.Fatalf("j does not scroll back to the question:\n%s", v)
	}
}
