package verify

import (
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
)

// MoveMetric counts nothing from before the move: the minute the move began
// in counts only when the minute before was quiet.
func TestMoveMetric(t *testing.T) {
	start := time.Date(2026, 11, 30, 21, 4, 30, 0, time.UTC)
	m := func(min int, v float64) cwapi.Point {
		return cwapi.Point{Time: time.Date(2026, 11, 30, 21, min, 0, 0, time.UTC), Value: v}
	}
	for _, tt := range []struct {
		name    string
		points  []cwapi.Point
		want    float64
		nil     bool
		partial bool
	}{
		{"no data", nil, 0, true, false},
		{"quiet before: the first minute is the move's", []cwapi.Point{m(4, 3), m(5, 2)}, 5, false, false},
		{"busy before: the first minute is left out", []cwapi.Point{m(3, 40), m(4, 43), m(5, 2)}, 2, false, true},
		{"busy before, nothing after", []cwapi.Point{m(3, 40), m(4, 43)}, 0, false, true},
		{"points before the move never count", []cwapi.Point{m(2, 100), m(4, 3)}, 3, false, false},
	} {
		got, partial := MoveMetric(tt.points, start)
		switch {
		case tt.nil && got != nil, !tt.nil && (got == nil || *got != tt.want), partial != tt.partial:
			t.Errorf("%s: got %v partial %v; want %v (nil %v) partial %v", tt.name, got, partial, tt.want, tt.nil, tt.partial)
		}
	}
	aligned := time.Date(2026, 11, 30, 21, 4, 0, 0, time.UTC)
	if got, partial := MoveMetric([]cwapi.Point{m(3, 40), m(4, 3)}, aligned); got == nil || *got != 3 || partial {
		t.Errorf("a move that began on the minute owns that minute: %v %v", got, partial)
	}
	r := Redriven{Moved: 4, DestQueue: "orders"}
	one, four := 1.0, 4.0
	if j := Judge(Observation{Sent: &one, Deleted: &four}, r); j.Pass || j.Done {
		t.Errorf("1 received of 4 moved passed: %+v", j)
	}
	if j := Judge(Observation{Sent: &one, Deleted: &four, Partial: true}, r); !j.Pass || len(j.Unchecked) != 1 {
		t.Errorf("a partial count is not judged but said: %+v", j)
	}
	if j := Judge(Observation{Sent: &four, Deleted: &four}, r); !j.Pass || len(j.Unchecked) != 0 {
		t.Errorf("evidence for both: %+v", j)
	}
}
