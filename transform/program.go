package transform

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/untrusted"
)

// MaxProgram bounds a program's source: a repair is a few lines of jq, and
// the plan and the report print it.
const MaxProgram = 64 << 10

// DefaultTimeout bounds one message's run of the program: a program that
// loops (`def f: f; f`) fails that message instead of hanging the move.
const DefaultTimeout = 2 * time.Second

// prelude defines set_attributes(f): the payload as it is, with the
// message attributes replaced by `$attributes | f`, under a key no payload
// has (it starts with a NUL), which Apply unwraps.
const prelude = `def set_attributes(f): {"\u0000mfdlq.transform": {payload: ., attributes: ($attributes | f)}}; .`

// marker is the key set_attributes wraps its result in.
const marker = "\x00mfdlq.transform"

// Program is a compiled --transform. It is safe for concurrent use: the
// mover runs it from several workers.
type Program struct {
	// Source is the program's text as given; Origin says where it came
	// from ("--transform" or "--transform-file FILE") for the plan, the
	// errors and the report.
	Source, Origin string
	// Timeout bounds one message's run (DefaultTimeout when zero).
	Timeout time.Duration
	code    *gojq.Code
	// readsMessage: the program names $message (the system attributes,
	// the MessageId, the envelope's kind); readsAttributes: it names
	// $attributes or calls set_attributes. Apply builds neither value for
	// a program that cannot read it, and a redrive receive asks SQS for
	// the system attributes only when it may (ReadsAttributes).
	readsMessage, readsAttributes bool
}

// Compile reads and compiles a program; origin names where it came from
// ("--transform", "--transform-file fix.jq") in its one-line error. Every
// syntax error and unknown name is found here, before any AWS call; the
// program sees no environment variables ($ENV and env are empty: an AWS
// key must never end up in a message).
func Compile(src, origin string) (*Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("%s: the program is empty: give a jq program such as '.version = 1'", origin)
	}
	if len(src) > MaxProgram {
		return nil, fmt.Errorf("%s: the program is %d bytes, over %d: keep a repair to a few lines", origin, len(src), MaxProgram)
	}
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: fix the program (jq syntax)", origin, parseErrorText(src, err))
	}
	// A variable is lexical in jq: a program that compiles without one
	// never reads it (set_attributes, the prelude's, reads $attributes).
	_, noAttrs := gojq.Compile(q, gojq.WithVariables([]string{"$message"}))
	pre, err := gojq.Parse(prelude)
	if err != nil {
		return nil, err
	}
	q.FuncDefs = append(pre.FuncDefs, q.FuncDefs...)
	code, err := gojq.Compile(q, gojq.WithVariables([]string{"$attributes", "$message"}),
		gojq.WithEnvironLoader(func() []string { return nil }))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: fix the program", origin, Reason(err))
	}
	_, noMessage := gojq.Compile(q, gojq.WithVariables([]string{"$attributes"}))
	return &Program{Source: src, Origin: origin, code: code, readsMessage: noMessage != nil, readsAttributes: noAttrs != nil}, nil
}

// ReadsAttributes tells whether the program may read a message's system
// attributes ($message.Attributes): when it cannot, a redrive's receive
// asks SQS only for those the move itself reads.
func (p *Program) ReadsAttributes() bool { return p.readsMessage }

// parseErrorText names a syntax error by line and column (a program from
// a file has lines), sanitised: the token comes from the operator's text.
func parseErrorText(src string, err error) string {
	var pe *gojq.ParseError
	if !errors.As(err, &pe) {
		return Reason(err)
	}
	// Offset is just past the token that failed: the column is where the
	// token starts.
	off := min(max(pe.Offset-len(pe.Token), 0), len(src))
	line := strings.Count(src[:off], "\n") + 1
	col := off - strings.LastIndexByte(src[:off], '\n')
	return fmt.Sprintf("syntax error at line %d, column %d: %s", line, col, Reason(err))
}

// ReadFile reads a --transform-file: a regular file of at most MaxProgram
// bytes, opened by incident.OpenRegular (a named pipe is refused, never
// waited on).
func ReadFile(path string) (string, error) {
	f, err := incident.OpenRegular(path, os.O_RDONLY)
	var nr *incident.NotRegularError
	if errors.As(err, &nr) {
		return "", fmt.Errorf("--transform-file %s: %s, not a regular file: give the path of a jq program", path, nr.Kind)
	}
	if err != nil {
		return "", fmt.Errorf("--transform-file %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxProgram+1))
	if err != nil {
		return "", fmt.Errorf("--transform-file %s: %w", path, err)
	}
	if len(b) > MaxProgram {
		return "", fmt.Errorf("--transform-file %s: over %d bytes: keep a repair to a few lines", path, MaxProgram)
	}
	return string(b), nil
}

// maxReason bounds a failure's reason: gojq quotes the values it failed
// on, and a payload can be a megabyte.
const maxReason = 300

// Reason is err's text made safe to keep and show: one line, control
// characters escaped (untrusted.Cell), cut to maxReason bytes at a token
// boundary so that the report's redaction still sees whole values.
func Reason(err error) string {
	s := err.Error()
	if len(s) > maxReason {
		s = untrusted.Head(s, maxReason) + "…"
	}
	return untrusted.Cell(s)
}

// PlanText is the program as the plan prints it: sanitised, on one line
// when it has one, else its origin and line count.
func (p *Program) PlanText() string { return programLine(p.Source, p.Origin) }

// programLine names a program on one line.
func programLine(src, origin string) string {
	src = strings.TrimSpace(src)
	if strings.Contains(src, "\n") {
		return fmt.Sprintf("%s (%d lines)", origin, strings.Count(src, "\n")+1)
	}
	return origin + " " + untrusted.Cell(untrusted.Shorten(src, 200))
}
