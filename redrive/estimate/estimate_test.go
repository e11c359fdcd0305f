package estimate

import (
	"strings"
	"testing"
	"time"
)

func TestMove(t *testing.T) {
	for _, tt := range []struct {
		name     string
		messages int
		rate     float64
		extra    time.Duration
		native   bool
		text     string
		ways     []string
	}{
		{name: "the runbook's 340 at 10", messages: 340, rate: 10, text: "about 34s"},
		{name: "a canary's wait counts", messages: 100, rate: 10, extra: 40 * time.Second, text: "about 50s"},
		{name: "max, small", messages: 5000, text: "as fast as the queues allow"},
		{name: "max, a million", messages: 1_000_000, text: "as fast as the queues allow (about 6m40s at 2500 msg/s"},
		{name: "8.6 million at 100", messages: 8_600_000, rate: 100, text: "about 23h53m20s",
			ways: []string{"longer than an hour", "--max 360000 takes about 1h0m0s", "--native at 500 msg/s takes about 4h46m40s"}},
		{name: "a million at max: over an hour of native", messages: 10_000_000, text: "about 1h6m40s at 2500",
			ways: []string{"--max 9000000 takes about 1h0m0s", "--native at 500 msg/s takes about 5h33m20s"}},
		{name: "native caps at 500", messages: 3_600_000, rate: 1000, native: true, text: "about 2h0m0s",
			ways: []string{"server-side"}},
		{name: "an hour exactly is not long", messages: 36_000, rate: 10, text: "about 1h0m0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := Move(tt.messages, tt.rate, tt.extra, tt.native)
			if got := e.Text(); !strings.Contains(got, tt.text) {
				t.Errorf("Text() = %q, want it to hold %q", got, tt.text)
			}
			ways := strings.Join(e.WaysOut(), "\n")
			if len(tt.ways) == 0 && ways != "" {
				t.Errorf("WaysOut() = %q, want none", ways)
			}
			for _, w := range tt.ways {
				if !strings.Contains(ways, w) {
					t.Errorf("WaysOut() = %q, want it to hold %q", ways, w)
				}
			}
		})
	}
}
