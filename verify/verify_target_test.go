package verify

import (
	"strings"
	"testing"
)

func TestJudgeTarget(t *testing.T) {
	one, two, zero := 1.0, 2.0, 0.0
	fn := Redriven{Target: "lambda", DestQueue: "lambda:orders", Moved: 5}
	for _, tc := range []struct {
		name     string
		o        Observation
		r        Redriven
		done     bool
		pass     bool
		contains string
	}{
		{"drained", Observation{}, Redriven{Target: "sns", DestQueue: "sns:orders"}, true, true, "no redriven payload came back"},
		{"left", Observation{DLQVisible: 3}, Redriven{Target: "events", DestQueue: "events:b"}, false, false, "still holds 3"},
		{"errors", Observation{FunctionErrors: &two}, fn, true, false, "reported 2 errors since"},
		{"no data", Observation{}, fn, true, true, "not checked: that lambda:orders ran without errors"},
		{"throttled", Observation{FunctionErrors: &zero, FunctionThrottles: &two}, fn, true, true, "throttled 2 times;"},
		{"one error", Observation{FunctionErrors: &one}, fn, true, false, "reported 1 error since"},
		{"throttled once", Observation{FunctionErrors: &zero, FunctionThrottles: &one}, fn, true, true, "throttled 1 time;"},
		{"returned", Observation{Returned: []Returned{{}}}, fn, true, false, "came back"},
	} {
		j := Judge(tc.o, tc.r)
		if j.Done != tc.done || j.Pass != tc.pass || !strings.Contains(strings.Join(j.Reasons, "\n"), tc.contains) {
			t.Errorf("%s: %+v", tc.name, j)
		}
	}
}
