package cmdutil

import "strconv"

// ParseRate reads --rate as redrive and runbook both take it: messages per
// second from minRate to maxRate, or max (0: as fast as the queues allow).
// The runbook checks its --rate with this same function before its first
// step, so a rate it accepts is one its redrive step takes: with rules of
// its own, `runbook --rate 20000` ran four steps and then failed.
func ParseRate(flag string) (float64, error) {
	switch flag {
	case "":
		return 0, UsageErrorf("--rate is required: messages per second (e.g. --rate 10) or --rate max")
	case "max":
		return 0, nil
	}
	r, err := strconv.ParseFloat(flag, 64)
	// ParseFloat accepts inf, nan and 1e-9: the range check refuses them
	// (NaN fails every comparison).
	if err != nil || !(r >= minRate && r <= maxRate) {
		return 0, UsageErrorf("--rate must be a number from %g to %g messages per second, or max; got %q", minRate, maxRate, flag)
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
