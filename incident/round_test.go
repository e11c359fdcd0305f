package incident

import "testing"

func TestRound2(t *testing.T) {
	for in, want := range map[float64]float64{0: 0, 1.234: 1.23, 1.235: 1.24, 0.005: 0.01, 2.5: 2.5, -1.235: -1.24, 12.3449: 12.34} {
		if got := Round2(in); got != want {
			t.Errorf("Round2(%v) = %v, want %v", in, got, want)
		}
	}
}
