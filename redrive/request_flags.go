package redrive

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/mfdlq/mfdlq/dedupe"
	"github.com/mfdlq/mfdlq/health"
	"github.com/mfdlq/mfdlq/transform"
)

// The checks of the flags that go together, before any AWS call; each
// error is the operator's to fix (a usage error) and names the flag.

// CheckRate parses --rate (ParseRate) and holds --native to what SQS's
// move task takes: a whole number from 1 to 500
// (MaxNumberOfMessagesPerSecond).
func (r *Request) CheckRate() error {
	if r.RateText == "max" && r.Native {
		return errors.New("--native needs a number: --rate 1 to 500 (SQS's MaxNumberOfMessagesPerSecond)")
	}
	rate, err := ParseRate(r.RateText)
	if err != nil {
		return err
	}
	if r.Native && (rate < 1 || rate > 500 || rate != float64(int(rate))) {
		return fmt.Errorf("--native: --rate must be a whole number from 1 to 500, got %q", r.RateText)
	}
	r.Rate = rate
	return nil
}

// ParseRate reads --rate as redrive and runbook both take it: messages per
// second from minRate to maxRate, or max (0: as fast as the queues allow).
// The runbook checks its --rate with this same function before its first
// step, so a rate it accepts is one its redrive step takes: with rules of
// its own, `runbook --rate 20000` ran four steps and then failed.
func ParseRate(flag string) (float64, error) {
	switch flag {
	case "":
		return 0, errors.New("--rate is required: messages per second (e.g. --rate 10) or --rate max")
	case "max":
		return 0, nil
	}
	r, err := strconv.ParseFloat(flag, 64)
	// ParseFloat accepts inf, nan and 1e-9: the range check refuses them
	// (NaN fails every comparison).
	if err != nil || !(r >= minRate && r <= maxRate) {
		return 0, fmt.Errorf("--rate must be a number from %g to %g messages per second, or max; got %q", minRate, maxRate, flag)
	}
	return r, nil
}

// minRate and maxRate bound --rate: below one message every 100 s a move
// of any size takes days, and above 10000 msg/s no SQS queue keeps up;
// --rate max is the way to say "as fast as the queues allow".
const (
	minRate = 0.01
	maxRate = 10000.0
)

// CheckTarget parses --to when it names a function, topic or bus
// (ParseTargetRef) into Target, and refuses the flags that make no sense
// for one.
func (r *Request) CheckTarget() error {
	t, err := ParseTargetRef(r.To)
	switch {
	case err != nil:
		return err
	case t.Kind == "":
		return nil
	case r.Native:
		return fmt.Errorf("--native moves to SQS queues only: drop --native to redrive to %s", t)
	case r.MaxBacklog > 0:
		return fmt.Errorf("--max-backlog reads a destination queue's depth; %s has none: drop --max-backlog", t)
	}
	r.Target = t
	return nil
}

// CheckWhenOK checks --when-ok's alarm names (WhenOK becomes them, each
// once) and --for and --give-up (timesGiven: either was given), which go
// with it.
func (r *Request) CheckWhenOK(timesGiven bool) error {
	if len(r.WhenOK) == 0 {
		if timesGiven {
			return errors.New("--for and --give-up go with --when-ok ALARM")
		}
		return nil
	}
	names, err := health.CheckNames(r.WhenOK)
	if err != nil {
		return err
	}
	if err := health.CheckDurations(r.For, r.GiveUp); err != nil {
		return err
	}
	r.WhenOK = names
	return nil
}

// CheckTransform reads --transform's program, or --transform-file's
// (file), and compiles it once (a syntax error, an unknown function, a
// missing file is one line): TransformProgram and TransformOrigin become
// its text and what names it in errors; Resolve compiles it for the run.
func (r *Request) CheckTransform(program, file string) error {
	src, origin := program, "--transform"
	switch {
	case file != "":
		s, err := transform.ReadFile(file)
		if err != nil {
			return err
		}
		src, origin = s, "--transform-file "+file
	case program == "":
		return nil
	}
	if _, err := transform.Compile(src, origin); err != nil {
		return err
	}
	r.TransformProgram, r.TransformOrigin = src, origin
	return nil
}

// CheckDedupe checks --dedupe (on) and --key (expr), which go together,
// and compiles the key once: DedupeKey becomes it ("" without --dedupe);
// Resolve compiles it into the run's claims.
func (r *Request) CheckDedupe(on bool, expr string) error {
	switch {
	case on && expr == "":
		return errors.New(`--dedupe needs --key JQ, the consumer's idempotency key: e.g. --key '"cobro:" + .order_id'`)
	case !on && expr != "":
		return errors.New("--key on redrive goes with --dedupe (to only count the keys: mfdlq inspect --key or mfdlq classify --key)")
	case !on:
		return nil
	case r.Native:
		return errors.New("--native moves every message: --dedupe needs mfdlq's own mover (drop --native)")
	}
	if _, err := dedupe.Compile(expr, keyPayload); err != nil {
		return err
	}
	r.DedupeKey = expr
	return nil
}

// CheckSource checks that the messages come from one place: a DLQ (queue:
// --queue) or an export (--from-file: to --to, else each line to its
// recorded source).
func (r *Request) CheckSource(queue string) error {
	switch {
	case queue == "" && r.FromFile == "":
		return errors.New("--queue is required: the DLQ's name, URL or ARN")
	case r.FromFile == "":
		return nil
	case queue != "":
		return errors.New("--queue and --from-file: choose one source")
	case r.Native || r.Keep:
		return errors.New("--from-file moves a file's messages: --native and --keep do not apply")
	case IsTarget(r.To):
		// A file has no DLQ to lease, nor one its payloads return to.
		return fmt.Errorf("--from-file moves to SQS queues only: redrive to %s from its DLQ with --queue", r.To)
	}
	return nil
}
