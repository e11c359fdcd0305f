//go:build race

package browse

// raceEnabled tells timing tests that the race detector slows everything
// about tenfold.
const raceEnabled = true
