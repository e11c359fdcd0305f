package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

// ansiSeq is an escape sequence a terminal interprets: CSI, OSC (ended by
// BEL or ST) or a two-byte ESC sequence.
var ansiSeq = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]|\x1b[()][0-9A-Za-z]`)

// pty-dialogue FILE mfdlq ARGS… runs the built binary in a pseudo-terminal
// of 80×24 and plays FILE against it, line by line (with $VARS expanded):
//
//	expect REGEX   wait up to 60 s for the screen's text (escape codes
//	               taken out) after the last match to match REGEX
//	send TEXT      type TEXT (a Go string literal's escapes: \r, \x1b, \x7f)
//	sleep DURATION wait (a lone ESC needs a pause before the next key)
//	raw-not TEXT   the raw output so far holds no TEXT (Go escapes)
//	signal NAME    send the program SIGINT or SIGTERM (INT, TERM), as a
//	               kill from elsewhere would (^C is `send \x03`)
//	exit N         the program must exit N (default 0)
//	within D       the program must have exited within D of its start
//	max-width N    no line the program printed is wider than N cells
//
// The program must then exit 0, or N (the dialogue ends by quitting it).
// The raw output is kept in $WORK/pty.out for a failing test.
func cmdPtyDialogue(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: pty-dialogue FILE PROGRAM [ARGS...]")
	}
	script := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	path, err := exec.LookPath(args[1])
	if err != nil {
		for _, dir := range strings.Split(ts.Getenv("PATH"), string(os.PathListSeparator)) {
			if p := dir + "/" + args[1]; fileExists(p) {
				path, err = p, nil
				break
			}
		}
	}
	ts.Check(err)
	c := exec.Command(path, args[2:]...)
	c.Dir = ts.Getenv("WORK")
	c.Env = ptyEnv(ts)
	started := time.Now()
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 80})
	ts.Check(err)
	defer f.Close()
	var mu sync.Mutex
	var raw bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			mu.Lock()
			raw.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	snapshot := func() string {
		mu.Lock()
		defer mu.Unlock()
		return raw.String()
	}
	defer func() { ts.Check(os.WriteFile(ts.MkAbs("pty.out"), []byte(snapshot()), 0o600)) }()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	pos, wantExit, within := 0, 0, time.Duration(0)
	for n, line := range strings.Split(script, "\n") {
		verb, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch verb {
		case "", "#":
		case "expect":
			re, err := regexp.Compile(arg)
			ts.Check(err)
			pos = ptyExpect(ts, re, snapshot, pos, n+1)
		case "send":
			text, err := strconv.Unquote(`"` + arg + `"`)
			ts.Check(err)
			_, err = f.Write([]byte(text))
			ts.Check(err)
		case "sleep":
			d, err := time.ParseDuration(arg)
			ts.Check(err)
			time.Sleep(d)
		case "signal":
			sig := map[string]os.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM}[arg]
			if sig == nil {
				ts.Fatalf("line %d: signal %q: use INT or TERM", n+1, arg)
			}
			ts.Check(c.Process.Signal(sig))
		case "max-width":
			limit, err := strconv.Atoi(arg)
			ts.Check(err)
			for _, l := range strings.Split(screenText(snapshot()), "\n") {
				if w := ansi.StringWidth(l); w > limit {
					ts.Fatalf("line %d: a line of %d cells, wider than %d: %q", n+1, w, limit, l)
				}
			}
		case "within":
			within, err = time.ParseDuration(arg)
			ts.Check(err)
		case "exit":
			wantExit, err = strconv.Atoi(arg)
			ts.Check(err)
		case "raw-not":
			text, err := strconv.Unquote(`"` + arg + `"`)
			ts.Check(err)
			if strings.Contains(snapshot(), text) {
				ts.Fatalf("line %d: the terminal received %q raw", n+1, text)
			}
		default:
			if !strings.HasPrefix(verb, "#") {
				ts.Fatalf("line %d: unknown verb %q", n+1, verb)
			}
		}
	}
	select {
	case err := <-done:
		if code := c.ProcessState.ExitCode(); code != wantExit {
			ts.Fatalf("the program ended with %v, want exit %d; screen:\n%s", err, wantExit, screenText(snapshot()))
		}
		if took := time.Since(started); within > 0 && took > within {
			ts.Fatalf("the program took %v, want under %v", took.Round(time.Millisecond), within)
		}
	case <-time.After(30 * time.Second):
		_ = c.Process.Kill()
		ts.Fatalf("the program did not exit after the dialogue")
	}
}

// ptyExpect waits for re in the screen's text after pos and returns where
// the match ended.
func ptyExpect(ts *testscript.TestScript, re *regexp.Regexp, snapshot func() string, pos, line int) int {
	deadline := time.Now().Add(60 * time.Second)
	for {
		text := screenText(snapshot())
		if pos <= len(text) {
			if loc := re.FindStringIndex(text[pos:]); loc != nil {
				return pos + loc[1]
			}
		}
		if time.Now().After(deadline) {
			tail := text[max(0, len(text)-3000):]
			ts.Fatalf("line %d: no %q on the screen in 60 s; the screen's text ends:\n%s", line, re, tail)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenText is the output without escape sequences: each line the view
// drew, in the order it drew them.
func screenText(raw string) string {
	s := ansiSeq.ReplaceAllString(raw, "\n")
	return strings.ReplaceAll(s, "\r", "")
}

// ptyEnv is the script's environment for the program: the local AWS, the
// clock and paths, and a terminal type.
func ptyEnv(ts *testscript.TestScript) []string {
	env := []string{"TERM=xterm-256color"}
	for _, k := range []string{"PATH", "HOME", "XDG_STATE_HOME", "TMPDIR", "WORK", "NO_COLOR", "MFDLQ_NOW", "MFDLQ_INCIDENT",
		"AWS_ENDPOINT_URL", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_EC2_METADATA_DISABLED", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "GOCOVERDIR"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, fmt.Sprintf("%s=%s", k, v))
		}
	}
	return env
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
