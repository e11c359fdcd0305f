package incident

import "math"

// Round2 is f with two decimals, half away from zero: how a ratio or a
// duration is written into the incident's files (a confidence, a redrive's
// seconds and rate). One rule for every step, so the same figure read back
// from two artifacts is the same number.
func Round2(f float64) float64 { return math.Round(f*100) / 100 }
