package browse

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata/frames")

// drive delivers cmd's messages to m until nothing is left, as bubbletea's
// loop would; a question of an action stops it (the action waits for a
// key) and the command that waits is returned.
func drive(t testing.TB, m *Model, cmd tea.Cmd) tea.Cmd {
	t.Helper()
	queue := []tea.Cmd{cmd}
	var waiting tea.Cmd
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := run(t, c)
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case tea.QuitMsg, nil:
			continue
		}
		_, next := m.Update(msg)
		if _, ok := msg.(askMsg); ok {
			waiting = next
			continue
		}
		queue = append(queue, next)
	}
	return waiting
}

// run runs one command, failing the test if it does not return: a bound
// for a hang, not a timing target (a loaded CI machine took 5 s to redact
// 1 MiB; speed is BenchmarkFrame's, never a test's).
func run(t testing.TB, c tea.Cmd) tea.Msg {
	t.Helper()
	ch := make(chan tea.Msg, 1)
	go func() { ch <- c() }()
	select {
	case msg := <-ch:
		return msg
	case <-time.After(2 * time.Minute):
		t.Fatal("a command did not return in 2 minutes")
		return nil
	}
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// press sends keys one by one, driving what each starts.
func press(t testing.TB, m *Model, keys ...string) tea.Cmd {
	t.Helper()
	var waiting tea.Cmd
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		waiting = drive(t, m, cmd)
	}
	return waiting
}

func newModel(t testing.TB, be Backend, opts Options, w, h int) *Model {
	t.Helper()
	opts.NoTick, opts.Now = true, func() time.Time { return now }
	m := New(context.Background(), be, opts)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(t, m, m.Init())
	return m
}

// golden compares a frame with testdata/frames/name.
func golden(t *testing.T, name, frame string) {
	t.Helper()
	path := filepath.Join("testdata", "frames", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(frame), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != frame {
		t.Errorf("frame %s differs from the golden (-update rewrites it):\n--- got\n%s\n--- want\n%s", name, frame, want)
	}
}

// checkFrame asserts what every frame must be: exactly the terminal's
// height, no line wider than it, no escape code or bidi control of the
// data (colour is off here, so none at all).
func checkFrame(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > w {
			t.Errorf("line %d is %d cells wide, terminal %d: %q", i+1, n, w, l)
		}
	}
	for _, bad := range []string{"\x1b", "\u202e", "\x07"} {
		if strings.Contains(frame, bad) {
			t.Errorf("frame holds a raw %q:\n%s", bad, frame)
		}
	}
}

// TestFrames walks fleet → DLQ → group → message (→ logs), the help and a
// redrive's question at 80×24 and 160×50, with box characters and with
// --ascii, and compares each frame with its golden.
func TestFrames(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 50}} {
		for _, ascii := range []bool{false, true} {
			w, h := size[0], size[1]
			suffix := "_" + itoa(w) + "x" + itoa(h)
			if ascii {
				suffix += "_ascii"
			}
			m := newModel(t, &fake{}, Options{ASCII: ascii}, w, h)
			steps := []struct {
				name string
				keys []string
			}{
				{"fleet", nil},
				{"dlq", []string{"enter"}},
				{"group", []string{"enter"}},
				{"message", []string{"enter"}},
				{"logs", []string{"l"}},
				{"help", []string{"?"}},
			}
			for _, s := range steps {
				press(t, m, s.keys...)
				frame := m.View()
				checkFrame(t, frame, w, h)
				if ascii && strings.ContainsFunc(frame, func(r rune) bool { return r > 0x7e }) {
					t.Errorf("--ascii frame %s holds a non-ASCII character:\n%s", s.name, frame)
				}
				golden(t, s.name+suffix+".txt", frame)
			}
			press(t, m, "?", "esc", "esc")
			press(t, m, "R")
			frame := m.View()
			checkFrame(t, frame, w, h)
			golden(t, "redrive_flags"+suffix+".txt", frame)
			waiting := press(t, m, "enter")
			frame = m.View()
			checkFrame(t, frame, w, h)
			golden(t, "redrive"+suffix+".txt", frame)
			m.Update(keyMsg("n"))
			drive(t, m, waiting)
		}
	}
}

func itoa(n int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'+n/100%10)) + string(rune('0'+n/10%10)) + string(rune('0'+n%10)))
}
