package browse

import (
	"bytes"
	"context"
	"errors"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsarn "github.com/aws/aws-sdk-go-v2/aws/arn"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/sqsapi"
)

// stepRun is one command's run inside the view.
type stepRun struct {
	args   []string                // the command line as an operator would type it
	prompt cmdutil.Prompter        // nil: reads, which ask nothing
	line   func(stderrLine string) // every line the command says on stderr
	out    func(stdoutLine string) // every line of its JSON output, as it comes
	lines  *[]string               // collects the stderr lines
}

// step runs `mfdlq <args> --output json` in process. The incident directory
// is the one browse chose for the queue (said with --incident), and the
// events record args, the command an operator would have typed.
func (b *browseBackend) step(ctx context.Context, queue string, r stepRun) ([]byte, error) {
	dir, err := b.incident(queue)
	if err != nil {
		return nil, err
	}
	var stdout bytes.Buffer
	var mu sync.Mutex
	var said []string
	errW := &lineWriter{emit: func(l string) {
		mu.Lock()
		said = append(said, l)
		mu.Unlock()
		if r.line != nil {
			r.line(l)
		}
	}}
	outW := &lineWriter{emit: func(l string) {
		stdout.WriteString(l + "\n")
		if r.out != nil {
			r.out(l)
		}
	}}
	// A copy of the view's Deps, so every client and clock a new field adds
	// arrives as is; the step gets its own streams, prompter, flags, command
	// line and incident choices.
	dc := *b.d
	sd := &dc
	sd.IO = &cmdutil.IOStreams{In: strings.NewReader(""), Out: outW, ErrOut: errW}
	sd.Prompt, sd.Global, sd.Args = r.prompt, &cmdutil.GlobalOptions{}, r.args
	sd.ForgetIncidents()
	if cfg, ok := b.configOf(queue); ok {
		sd.AWS = func(context.Context) (aws.Config, error) { return cfg, nil }
		sd.WireClients()
	}
	if sd.Prompt == nil {
		sd.Prompt = noPrompter{}
	}
	args := append(append([]string{}, r.args...), "--output", "json", "--incident", dir, "--no-color")
	code := b.exec(ctx, sd, args)
	errW.flush()
	outW.flush()
	if r.lines != nil {
		*r.lines = said
	}
	if code == cmdutil.ExitOK {
		return stdout.Bytes(), nil
	}
	return stdout.Bytes(), &cmdutil.ExitError{Code: code, Err: errors.New(lastError(said))}
}

// configOf is the configuration that reaches queue's account when the
// view spans a fleet and queue is one of its DLQs (an ARN), in queue's
// region.
func (b *browseBackend) configOf(queue string) (aws.Config, bool) {
	a, err := awsarn.Parse(queue)
	if err != nil {
		return aws.Config{}, false
	}
	b.mu.Lock()
	cfg, ok := b.configs[a.AccountID]
	b.mu.Unlock()
	if !ok {
		return aws.Config{}, false
	}
	cfg = cfg.Copy()
	cfg.Region = a.Region
	return cfg, true
}

// incident is the directory the view's steps about queue write to, chosen
// once as the commands choose it (the open incident of the queue, else a
// new one) and then passed to each step.
func (b *browseBackend) incident(queue string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// The steps the view runs choose the incident by the queue's name,
	// whether the view names it by name or (across accounts) by ARN.
	dir, err := b.d.IncidentDir(sqsapi.NameOf(queue))
	if err != nil {
		return "", err
	}
	return filepath.Clean(dir), nil
}

// lastError is what the command said when it failed: its "mfdlq: …" lines.
func lastError(said []string) string {
	var msgs []string
	for _, l := range said {
		if m, ok := strings.CutPrefix(l, "mfdlq: "); ok {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 {
		if len(said) > 0 {
			return said[len(said)-1]
		}
		return "failed"
	}
	return strings.Join(msgs, "; ")
}

// viewPrompter asks the command's question in the view's y/N modal.
type viewPrompter struct {
	ask func(question string) (bool, error)
}

// Confirm shows question with the plan the command printed before it.
func (p *viewPrompter) Confirm(question string) (bool, error) { return p.ask(question) }

// Input is refused: the view's modal asks yes or no, and a step it runs
// leaves a text it would ask for as a TODO.
func (p *viewPrompter) Input(string) (string, error) { return "", cmdutil.ErrNoTerminal }

// noPrompter answers the steps that read: they ask nothing, and a
// question would be a surprise, so it is refused.
type noPrompter struct{}

func (noPrompter) Confirm(string) (bool, error) { return false, cmdutil.ErrNoTerminal }

// Input is refused as Confirm is.
func (noPrompter) Input(string) (string, error) { return "", cmdutil.ErrNoTerminal }

// lineWriter calls emit with each complete line written to it.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	emit func(string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.buf[:i]), "\r")
		w.buf = w.buf[i+1:]
		w.emit(line)
	}
	return len(p), nil
}

func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(string(w.buf))
		w.buf = nil
	}
}
