package vitals

import (
	"strings"
	"testing"
)

func TestJudgeTarget(t *testing.T) {
	two, zero := 2.0, 0.0
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
		{"errors", Observation{FunctionErrors: &two}, fn, true, false, "reported 2 error(s)"},
		{"no data", Observation{}, fn, true, true, "no CloudWatch data"},
		{"throttled", Observation{FunctionErrors: &zero, FunctionThrottles: &two}, fn, true, true, "throttled 2 time(s)"},
		{"returned", Observation{Returned: []Returned{{}}}, fn, true, false, "came back"},
	} {
		j := JudgeVerify(tc.o, tc.r)
		if j.Done != tc.done || j.Pass != tc.pass || !strings.Contains(strings.Join(j.Reasons, "\n"), tc.contains) {
			t.Errorf("%s: %+v", tc.name, j)
		}
	}
}
