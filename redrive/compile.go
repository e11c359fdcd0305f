package redrive

import (
	"errors"

	"github.com/mfdlq/mfdlq/classify"
	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/envelope"
	"github.com/mfdlq/mfdlq/incident"
	"github.com/mfdlq/mfdlq/sqsjson"
	"github.com/mfdlq/mfdlq/transform"
)

// compileSteps compiles what the request asks to run on each message: the
// transform and the dedupe claims (the caller checked both before any AWS
// call: an error here is a usage error all the same).
func (p *Plan) compileSteps() error {
	r := p.Req
	if r.TransformProgram != "" {
		prog, err := transform.Compile(r.TransformProgram, r.TransformOrigin)
		if err != nil {
			return usagef("%v", err)
		}
		p.Transform = prog
	}
	if r.DedupeKey != "" {
		k, err := dedupe.Compile(r.DedupeKey, keyPayload)
		if err != nil {
			return usagef("%v", err)
		}
		p.Dedupe = dedupe.NewClaims(k)
	}
	return nil
}

// keyPayload is what --key reads: the inner message of an SNS or
// EventBridge envelope, as the mover and --transform see it.
func keyPayload(m *sqsjson.Message) ([]byte, bool) {
	env := envelope.Detect(m)
	return env.Payload, env.PayloadJSON
}

// compileSelection compiles the selection into p.Select; --group reads
// the incident's classification.json (classify.GroupOf), which is why
// Guard, holding the incident, calls it. Its errors are usage errors that
// name the fix.
func (p *Plan) compileSelection(ws *incident.Workspace) error {
	var groupOf func(*sqsjson.Message) string
	if g := p.Req.Group; g != "" {
		of, err := classify.GroupOf(ws, g)
		if err != nil {
			return usagef("%v", err)
		}
		groupOf = of
	}
	sel, err := p.Req.Selection.Compile(groupOf)
	if err != nil {
		return usagef("%v", err)
	}
	p.Select = sel
	return nil
}

// selectFunc is the mover's Select (nil: every message). A plan whose
// selection is not empty but was never compiled (Guard did not run)
// refuses: its zero Predicate would move everything.
func (p *Plan) selectFunc() (func(*sqsjson.Message) (bool, error), error) {
	if p.Select.All() && !p.Req.Selection.Empty() {
		return nil, errors.New("redrive: the selection was not compiled (Guard did not run): nothing moved")
	}
	return p.Select.Func(), nil
}
