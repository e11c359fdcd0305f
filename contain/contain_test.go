package contain

import (
	"strings"
	"testing"
	"time"

	"github.com/mfdlq/mfdlq/cwapi"
)

var t0 = time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)

func series(vals ...float64) []cwapi.Point {
	ps := make([]cwapi.Point, len(vals))
	for i, v := range vals {
		ps[i] = cwapi.Point{Time: t0.Add(time.Duration(i) * time.Minute), Value: v}
	}
	return ps
}

func TestTrendOf(t *testing.T) {
	tests := []struct {
		name      string
		points    []cwapi.Point
		want      string
		perMinute float64
	}{
		{"growing from zero", series(0, 2, 5, 9, 14, 20), Growing, 4},
		{"one message more is growth", series(0, 1), Growing, 1},
		{"draining", series(40, 30, 22, 10, 2), Draining, -9.5},
		{"flat", series(340, 340, 340), Stable, 0},
		{"within 5% is stable", series(340, 350), Stable, 10},
		{"one point", series(3), Unknown, 0},
		{"none", nil, Unknown, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TrendOf(tt.points, FromCloudWatch)
			if got.Direction != tt.want || got.PerMinute != tt.perMinute {
				t.Errorf("TrendOf = %s %.2f/min, want %s %.2f/min", got.Direction, got.PerMinute, tt.want, tt.perMinute)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	age := func(f float64) *float64 { return &f }
	tests := []struct {
		name  string
		trend string
		src   *SourceVitals
		alive bool
		says  string
	}{
		{"growing DLQ", Growing, nil, true, "grew from"},
		{"unknown trend is alive", Unknown, nil, true, "treat it as alive"},
		{"stable, normal age", Stable, &SourceVitals{Queue: "orders", AgeOfOldest: age(12), NormalAge: age(10)}, false, "oldest message is 12s old (normal 10s)"},
		{"stable, age far above normal", Stable, &SourceVitals{Queue: "orders", AgeOfOldest: age(900), NormalAge: age(10), AgeElevated: AgeElevated(age(900), age(10))}, true, "above its normal"},
		{"draining, no age data", Draining, &SourceVitals{Queue: "orders"}, false, "no CloudWatch data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alive, reasons := Judge(DLQVitals{Queue: "orders-dlq", Trend: Trend{Direction: tt.trend, From: 1, To: 9}}, tt.src)
			if alive != tt.alive || !strings.Contains(strings.Join(reasons, "\n"), tt.says) {
				t.Errorf("Judge = %v %q, want %v and %q", alive, reasons, tt.alive, tt.says)
			}
		})
	}
}

func TestAgeElevated(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		age, normal *float64
		want        bool
	}{
		{nil, f(10), false}, {f(12), nil, false}, {f(300), nil, true},
		{f(69), f(10), false}, {f(70), f(10), true}, {f(1000), f(600), false}, {f(1200), f(600), true},
	} {
		if got := AgeElevated(tt.age, tt.normal); got != tt.want {
			t.Errorf("AgeElevated(%v, %v) = %v, want %v", deref(tt.age), deref(tt.normal), got, tt.want)
		}
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
