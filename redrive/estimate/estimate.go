// Package estimate says how long a redrive will take, as the plan says it
// before the question: messages at the rate asked (or the rate --rate max
// reaches), plus the canary's wait, and the ways out of a long move. cmd
// prints it; it imports nothing of mfdlq's.
package estimate

import (
	"fmt"
	"time"
)

// longMove is the move the plan warns about: a laptop that has to stay
// awake, online and logged in for longer than this is a risk of its own
// at 3 a.m.
const longMove = time.Hour

// maxRateAssumed is the rate the plan assumes for --rate max: what the
// adaptive mover reached with SQS answering in 20 ms (docs/redrive-figures.md,
// 2,504–2,594 msg/s whole process). The progress bar's ETA, from the rate
// measured as the move goes, replaces it once the move starts.
const maxRateAssumed = 2500

// nativeMaxRate is the most a message move task moves (SQS's
// MaxNumberOfMessagesPerSecond, 1–500).
const nativeMaxRate = 500

// Estimate is how long a move will take, as the plan says it.
type Estimate struct {
	Messages int
	Rate     float64       // msg/s the estimate assumes
	Assumed  bool          // --rate max: Rate is maxRateAssumed
	Duration time.Duration // messages / rate, plus the canary's wait
	Long     bool          // longer than longMove
	Native   bool
}

// Move estimates a move of messages at rate msg/s (0: --rate max)
// with extra time for the canary's wait: messages / rate + extra. A
// native move goes at most nativeMaxRate.
func Move(messages int, rate float64, extra time.Duration, native bool) Estimate {
	e := Estimate{Messages: max(messages, 0), Rate: rate, Native: native}
	if rate <= 0 {
		e.Rate, e.Assumed = maxRateAssumed, true
	}
	if native {
		e.Rate = min(e.Rate, nativeMaxRate)
		e.Assumed = false
	}
	e.Duration = seconds(float64(e.Messages)/e.Rate) + extra
	e.Long = e.Duration > longMove
	return e
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Text is the plan's duration: "about 34s" at a --rate; at --rate max
// "as fast as the queues allow", with the estimate at maxRateAssumed once
// it is a minute or more.
func (e Estimate) Text() string {
	if !e.Assumed {
		return "about " + e.Duration.Round(time.Second).String()
	}
	if e.Duration < time.Minute {
		return "as fast as the queues allow"
	}
	return fmt.Sprintf("as fast as the queues allow (about %s at %d msg/s, a typical --rate max; the progress bar shows the real ETA)", e.Duration.Round(time.Second), maxRateAssumed)
}

// WaysOut are the plan's lines for a move longer than longMove: that it is,
// and the two ways out, each with its own estimate — a --max slice that
// takes about an hour, or SQS's own move task (--native), server-side, so
// no laptop has to stay awake. None for a shorter move.
func (e Estimate) WaysOut() []string {
	if !e.Long {
		return nil
	}
	if e.Native {
		return []string{"this move takes longer than an hour; SQS runs it server-side, so nothing here needs to stay awake (mfdlq follows it until you press Ctrl-C, which cancels it)"}
	}
	slice := int(e.Rate * longMove.Seconds())
	if slice >= 10000 {
		slice = slice / 1000 * 1000
	}
	native := Move(e.Messages, 0, 0, true)
	return []string{
		"this move takes longer than an hour: this machine must stay awake and online throughout (a rerun resumes it where it stopped)",
		fmt.Sprintf("or move a slice: --max %d takes about %s; run the same command again for the next slice", slice, roundDur(Move(slice, e.rate(), 0, false).Duration)),
		fmt.Sprintf("or let SQS move them: --native at %d msg/s takes about %s, server-side, nothing here needs to stay awake (every message, no selection, no canary)", nativeMaxRate, roundDur(native.Duration)),
	}
}

// rate is the --rate the estimate stands for (0: max).
func (e Estimate) rate() float64 {
	if e.Assumed {
		return 0
	}
	return e.Rate
}

// roundDur is d to the second, at least one.
func roundDur(d time.Duration) time.Duration { return max(d.Round(time.Second), time.Second) }
