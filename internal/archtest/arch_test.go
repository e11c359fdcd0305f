// Package archtest holds the test that keeps mfdlq's import arrows pointing
// one way: cmd → runbook/report → domain → base.
package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/mfdlq/mfdlq/"

// layer of every package cmd can reach, top to bottom. A package may import
// only packages of a lower layer, with the exceptions in allowed; base
// packages may import each other. A new package gets a layer here, which is
// the point: someone decides where it sits.
var layer = map[string]int{
	"cmd": 0,
	// What the commands share (Deps, IO streams, errors, output, the
	// prompter): below every command, above the steps it reaches. A
	// command's own package (cmd/<command>) is layer 0 too (layerOf).
	"cmd/cmdutil": 1,
	// The flow and the report: they read what the domain packages decide.
	"runbook": 1, "report": 1,
	// The full-screen view: it shows what the domain packages decide.
	"browse": 1,
	// triage runs the first steps' packages in one read-only pass.
	"triage": 1,
	// mcpserver: the read-only steps as MCP tools; it runs them through a
	// Runner cmd gives it, never importing cmd.
	"mcpserver": 1,
	// Domain: each decides one thing and imports no other domain package.
	"classify": 2, "redrive": 2, "logsearch": 2, "contain": 2, "verify": 2, "check": 2, "changes": 2,
	"inventory": 2, "archive": 2,
	// A person's note on a DLQ (queue tags), and the team told when a step ends.
	"note": 2, "notify": 2,
	// A step's own sub-packages sit in its layer; the step imports them
	// (allowed below), no other domain package does.
	"redrive/lease": 2, "redrive/journal": 2, "redrive/target": 2, "redrive/retry": 2, "redrive/mover": 2,
	"redrive/canary": 2, "redrive/movetask": 2, "redrive/consumer": 2, "redrive/window": 2, "redrive/estimate": 2, "redrive/place": 2, "redrive/sample": 2,
	// The wait for a dependency's alarms: redrive's gate, its own package
	// (it imports neither redrive nor cmd).
	"health": 2,
	// Base: the incident directory, the AWS layers, the message shape, text
	// (untrusted: how strangers' data leaves mfdlq), and the AWS errors'
	// vocabulary (awserr) that every layer above asks.
	"awserr": 3, "incident": 3, "plural": 3, "sqsapi": 3, "sqsjson": 3, "redact": 3, "signature": 3, "cwapi": 3, "lambdaapi": 3, "trailapi": 3,
	"envelope": 3, "untrusted": 3, "s3api": 3, "idempotency": 3,
	// tagvalue: mfdlq's words in queue tags (the lease's, a note's); fleet:
	// the accounts (Organizations, AssumeRole, profiles) a listing reads.
	"tagvalue": 3, "fleet": 3,
	// s3name: S3's bucket naming rule, pure, for export's --out and --lease.
	"s3name": 3,
	// docs: the commands' help, written in their pages, embedded.
	"docs": 3,
	// transform: a --transform program over a message; pure, so redrive
	// runs it and the report renders its figures.
	"transform": 3,
	// dedupe: --key's expression, its tally and a redrive's claims; pure,
	// so inspect and classify count keys and the mover dedupes.
	"dedupe": 3,
	// redrive/provenance: the stamp a redriven message carries and who ran
	// the redrive (STS); pure but for one STS call, so the mover and the
	// targets stamp, redrive decides, and the report renders its figures.
	"redrive/provenance": 3,
	// incidents3: incidents in S3 (a working copy, conditional writes), in
	// the base beside incident; alarmtriage: the Lambda's flow over an alarm
	// event (the episode, the incident in S3, the team told), above notify.
	"incidents3": 3, "alarmtriage": 1,
	// selection: which messages a step takes (--group, --filter, the time
	// bounds, --max) from the flags to the predicate; pure, so redrive,
	// export and the report share one value.
	"selection": 3,
	// receipts: the receive engine export and the mover share (what a
	// reader holds, what lost receives may hide, one clock); base, so
	// archive and redrive/mover both sit above it.
	"receipts": 3,
}

// allowed are the imports across one layer: redrive selects by classify's
// groups (--group), holds its DLQ with its own lease, waits on the
// dependency's alarms (--when-ok), and reads a dry run's selection as an
// export reads a DLQ (archive.Export, nothing written).
var allowed = map[string]bool{"redrive→classify": true, "redrive→archive": true, "redrive→redrive/lease": true, "redrive→redrive/journal": true,
	"redrive→redrive/target": true, "redrive→redrive/retry": true, "redrive/target→redrive/retry": true,
	"redrive→redrive/mover": true, "redrive/mover→redrive/journal": true, "redrive/mover→redrive/retry": true,
	"redrive→health": true, "redrive→redrive/canary": true, "redrive→redrive/movetask": true, "redrive→redrive/consumer": true, "redrive→redrive/window": true, "redrive→redrive/place": true, "redrive→redrive/sample": true, "redrive→redrive/estimate": true}

// forbidden are imports no package below cmd may have: the terminal and the
// command line belong to cmd.
var forbidden = []string{"github.com/spf13/cobra", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbletea"}

// terminal are the packages that may draw on the terminal: cmd, and the
// full-screen view it runs (which never parses a command line).
var terminal = map[string]bool{"cmd": true, "cmd/cmdutil": true, "browse": true}

// testSupport are packages only tests may import: product code never
// reaches them.
var testSupport = []string{"cmd/cmdtest"}

// isCommand tells a command's own package, cmd/<command>: it may import
// cmdutil and the steps, never cmd or another command; only cmd imports it.
func isCommand(p string) bool {
	return strings.HasPrefix(p, "cmd/") && p != "cmd/cmdutil" && p != "cmd/cmdtest"
}

// layerOf is p's layer: layer's, or 0 for a command's own package.
func layerOf(p string) (int, bool) {
	if isCommand(p) {
		return 0, true
	}
	l, ok := layer[p]
	return l, ok
}

// parsesFlags tells the packages that may import cobra: cmd, cmdutil and
// the commands' own packages.
func parsesFlags(p string) bool { return p == "cmd" || strings.HasPrefix(p, "cmd/") }

// maxChain is the longest import chain from cmd, cmd included, counting
// only the module's packages. The command tree is one link: cmd and a
// command's own package (cmd/<command>) count as one.
const maxChain = 6

// graph is `go list -deps` of cmd: each of the module's packages and what it
// imports (the module's, and the forbidden ones).
func graph(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"cmd").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	g := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], module) {
			continue
		}
		from := strings.TrimPrefix(f[0], module)
		g[from] = []string{}
		for _, imp := range f[1:] {
			switch {
			case strings.HasPrefix(imp, module):
				g[from] = append(g[from], strings.TrimPrefix(imp, module))
			case isForbidden(imp):
				g[from] = append(g[from], imp)
			}
		}
	}
	if len(g) < len(layer)/2 {
		t.Fatalf("go list found %d packages: %q", len(g), out)
	}
	return g
}

func isForbidden(imp string) bool {
	for _, f := range forbidden {
		if imp == f || strings.HasPrefix(imp, f+"/") {
			return true
		}
	}
	return false
}

func TestImportArrows(t *testing.T) {
	g := graph(t)
	for _, from := range sortedKeys(g) {
		for _, ts := range testSupport {
			if from == ts {
				t.Errorf("product code reaches %s, which only tests may import", ts)
			}
		}
		lf, ok := layerOf(from)
		if !ok {
			t.Errorf("package %s has no layer: add it to layer in internal/archtest", from)
			continue
		}
		for _, to := range g[from] {
			if isForbidden(to) {
				if !(terminal[from] || isCommand(from)) || (!parsesFlags(from) && strings.HasPrefix(to, "github.com/spf13/cobra")) {
					t.Errorf("%s imports %s: only cmd may (browse may draw, never parse flags)", from, to)
				}
				continue
			}
			if isCommand(to) {
				if from != "cmd" {
					t.Errorf("%s imports %s: only cmd imports a command's package (shared parts go to cmd/cmdutil)", from, to)
				}
				continue
			}
			lt, ok := layerOf(to)
			if !ok {
				continue // reported as its own package
			}
			if lt > lf || (lt == lf && lf == 3) || allowed[from+"→"+to] {
				continue
			}
			t.Errorf("%s (layer %d) imports %s (layer %d): arrows point down, cmd → runbook/report → domain → base", from, lf, to, lt)
		}
	}
}

func TestLongestImportChain(t *testing.T) {
	g := graph(t)
	memo := map[string][]string{}
	var longest func(string) []string
	longest = func(p string) []string {
		if c, ok := memo[p]; ok {
			return c
		}
		best := []string{p}
		for _, q := range g[p] {
			if _, ok := g[q]; !ok {
				continue
			}
			if c := append([]string{p}, longest(q)...); len(c) > len(best) {
				best = c
			}
		}
		memo[p] = best
		return best
	}
	chain := longest("cmd")
	n := len(chain)
	if n > 1 && isCommand(chain[1]) {
		n-- // cmd → cmd/<command>: one link of the command tree
	}
	t.Logf("longest chain: %d packages: %s", n, strings.Join(chain, " → "))
	if n > maxChain {
		t.Errorf("the longest import chain from cmd is %d packages (%s), more than %d", n, strings.Join(chain, " → "), maxChain)
	}
}

func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
