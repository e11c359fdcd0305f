package contain

import (
	"strings"
	"testing"

	containstep "github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/lambdaapi"
)

// Every verdict of contain ends with a next step, the alive one with no
// Lambda mapping to pause too (before, it ended on the verdict).
func TestContainNextAfterEveryVerdict(t *testing.T) {
	mapping := []lambdaapi.Mapping{{UUID: "u-1", Function: "handler"}}
	src := &containstep.SourceVitals{Queue: "orders"}
	tests := []struct {
		name string
		rep  containstep.Result
		want string
	}{
		{"not alive", containstep.Result{}, "mfdlq inspect --queue orders-dlq"},
		{"not alive, paused", containstep.Result{Change: &lambdaapi.MappingChange{Action: lambdaapi.ActionPause}},
			"mfdlq inspect --queue orders-dlq (the mapping stays paused until mfdlq contain --queue orders-dlq --resume-mapping)"},
		{"alive, a mapping", containstep.Result{Alive: true, Mappings: mapping, Source: src},
			"stop the bleeding: mfdlq contain --queue orders-dlq --pause-mapping (or --cap-concurrency N), or roll back the change that broke it"},
		{"alive, a dry run of the pause", containstep.Result{Alive: true, Mappings: mapping, Source: src, Change: &lambdaapi.MappingChange{Action: lambdaapi.ActionPause, DryRun: true}},
			"stop the bleeding: mfdlq contain --queue orders-dlq --pause-mapping"},
		{"alive, just paused", containstep.Result{Alive: true, Mappings: mapping, Source: src, Change: &lambdaapi.MappingChange{Action: lambdaapi.ActionPause}},
			"watch the DLQ stop growing: mfdlq contain --queue orders-dlq again in a few minutes"},
		{"alive, no mapping", containstep.Result{Alive: true, Source: src},
			"stop the bleeding: no Lambda mapping reads orders, so pause its consumer by its own means or roll back the change that broke it; then mfdlq inspect --queue orders-dlq"},
		{"alive, no source", containstep.Result{Alive: true},
			"mfdlq contain --queue orders-dlq --source QUEUE"},
	}
	for _, tc := range tests {
		if got := containNext("orders-dlq", &tc.rep); !strings.Contains(got, tc.want) {
			t.Errorf("%s: next: %q, want %q in it", tc.name, got, tc.want)
		}
	}
}
