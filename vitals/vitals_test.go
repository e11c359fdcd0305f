package vitals

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/mfdlq/mfdlq/internal/localaws"
	"github.com/mfdlq/mfdlq/redrive"
	"github.com/mfdlq/mfdlq/sqsapi"
	"github.com/mfdlq/mfdlq/sqsjson"
)

func TestMain(m *testing.M) { os.Exit(localaws.Wrap(m).Run()) }

var t0 = time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)

func series(vals ...float64) []Point {
	ps := make([]Point, len(vals))
	for i, v := range vals {
		ps[i] = Point{Time: t0.Add(time.Duration(i) * time.Minute), Value: v}
	}
	return ps
}

func TestTrendOf(t *testing.T) {
	tests := []struct {
		name      string
		points    []Point
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

func TestRecordedRestoresStateBeforeFirstChange(t *testing.T) {
	five := int32(5)
	enabled := MappingState{Enabled: true}
	paused := MappingState{Enabled: false}
	fig := func(c MappingChange) map[string]any { return map[string]any{"mapping_change": c} }
	figures := []map[string]any{
		{"visible": 3.0},
		fig(MappingChange{Action: ActionPause, UUID: "u1", Before: enabled, After: paused}),
		fig(MappingChange{Action: ActionPause, UUID: "u2", Before: paused, After: paused}),
		fig(MappingChange{Action: ActionCap, UUID: "u1", Before: paused, After: MappingState{MaximumConcurrency: &five}}),
		fig(MappingChange{Action: ActionCap, UUID: "u1", Before: enabled, DryRun: true}),
	}
	got, err := Recorded(figures, "u1")
	if err != nil || got == nil || !got.Enabled || got.MaximumConcurrency != nil {
		t.Fatalf("Recorded = %+v, %v; want enabled, no cap", got, err)
	}
	figures = append(figures, fig(MappingChange{Action: ActionResume, UUID: "u1", Before: paused, After: enabled}))
	if got, _ := Recorded(figures, "u1"); got != nil {
		t.Errorf("after a resume Recorded = %+v, want nil", got)
	}
	if got, _ := Recorded(figures, "u3"); got != nil {
		t.Errorf("unknown mapping: Recorded = %+v, want nil", got)
	}
}

func TestPick(t *testing.T) {
	ms := []Mapping{{UUID: "a", Function: "f"}, {UUID: "b", Function: "g"}}
	if _, err := Pick(ms, ""); err == nil || !strings.Contains(err.Error(), "pass --mapping UUID, one of a (f), b (g)") {
		t.Errorf("two mappings, no uuid: %v", err)
	}
	if m, err := Pick(ms, "b"); err != nil || m.Function != "g" {
		t.Errorf("Pick b = %+v, %v", m, err)
	}
	if _, err := Pick(nil, ""); err == nil {
		t.Error("no mapping: want an error")
	}
}

func TestAlarmProblem(t *testing.T) {
	good := cwtypes.MetricAlarm{
		ComparisonOperator: cwtypes.ComparisonOperatorGreaterThanThreshold, Threshold: aws.Float64(0),
		Period: aws.Int32(300), EvaluationPeriods: aws.Int32(1), AlarmActions: []string{"arn:aws:sns:us-east-1:1:x"},
	}
	if p := alarmProblem(good); p != "" {
		t.Errorf("good alarm: %q", p)
	}
	high := good
	high.Threshold = aws.Float64(100)
	slow := good
	slow.EvaluationPeriods = aws.Int32(3)
	silent := good
	silent.AlarmActions = nil
	for name, a := range map[string]cwtypes.MetricAlarm{"does not fire": high, "15m0s": slow, "no alarm action": silent} {
		if p := alarmProblem(a); !strings.Contains(p, name) {
			t.Errorf("alarmProblem = %q, want it to say %q", p, name)
		}
	}
}

func TestFindingsRetentionFIFOAndAttempts(t *testing.T) {
	dlq := &sqsapi.Queue{Name: "o-dlq.fifo", FIFO: true, Retention: 4 * 24 * time.Hour}
	src := &sqsapi.Queue{Name: "o.fifo", Retention: 4 * 24 * time.Hour, Visibility: 30 * time.Second,
		RedrivePolicy: &sqsapi.RedrivePolicy{MaxReceiveCount: 10}}
	fs := Findings(CheckInput{DLQ: dlq, Sources: []*sqsapi.Queue{src}, SDKAttempts: 3, WorkflowAttempts: 1,
		Mappings: map[string][]Mapping{"o.fifo": nil}})
	status := map[string]string{}
	for _, f := range fs {
		status[f.ID] = f.Status
	}
	want := map[string]string{IDDLQAlarm: Fail, IDDLQRetention: Warn, IDVisibilityLambda: Skip, IDVisibilityRead: Skip, IDMaxReceiveCount: Pass, IDAttemptsPerDepend: Warn}
	for id, s := range want {
		if status[id] != s {
			t.Errorf("%s = %s, want %s", id, status[id], s)
		}
	}
	if Worst(fs) != Fail {
		t.Errorf("Worst = %s", Worst(fs))
	}
}

// What could not be read is "not verified" (warn), never "absent": no
// alarm would be a failure, no mapping a skip.
func TestFindingsWhenCloudWatchAndLambdaAreDenied(t *testing.T) {
	dlq := &sqsapi.Queue{Name: "o-dlq", Retention: 14 * 24 * time.Hour}
	src := &sqsapi.Queue{Name: "o", Retention: 4 * 24 * time.Hour, Visibility: 30 * time.Second,
		RedrivePolicy: &sqsapi.RedrivePolicy{MaxReceiveCount: 5}}
	fs := Findings(CheckInput{DLQ: dlq, Sources: []*sqsapi.Queue{src}, SDKAttempts: 1, WorkflowAttempts: 1,
		AlarmsUnknown: "AccessDenied on cloudwatch:DescribeAlarmsForMetric"})
	byID := map[string]Finding{}
	for _, f := range fs {
		byID[f.ID] = f
	}
	if f := byID[IDDLQAlarm]; f.Status != Warn || !strings.Contains(f.Message, "AccessDenied") || !strings.Contains(f.Fix, "DescribeAlarmsForMetric") {
		t.Errorf("alarm finding %+v", f)
	}
	if f := byID[IDVisibilityLambda]; f.Status != Warn || !strings.Contains(f.Message, "unknown") || !strings.Contains(f.Fix, "ListEventSourceMappings") {
		t.Errorf("lambda finding %+v", f)
	}
	if Worst(fs) != Warn {
		t.Errorf("Worst = %s, want warn: nothing failed, two things not verified", Worst(fs))
	}
}

func TestMatchReturnedAndJudgeVerify(t *testing.T) {
	r := Redriven{Moved: 3, DestQueue: "orders", Sent: []redrive.Entry{
		{Op: redrive.OpSent, DLQMessageID: "d1", DestMessageID: "n1", BodySHA256: redrive.BodySHA256("a")},
		{Op: redrive.OpSent, DLQMessageID: "d2", DestMessageID: "n2", BodySHA256: redrive.BodySHA256("b")},
	}}
	msgs := []sqsjson.Message{{MessageId: "n2", Body: "b"}, {MessageId: "other", Body: "a"}}
	got := MatchReturned(msgs, r, t0)
	if len(got) != 1 || got[0].MessageID != "n2" || got[0].DLQMessageID != "d2" || got[0].MatchedBy != "message_id" {
		t.Fatalf("by id: %+v", got)
	}
	r.Native = true
	got = MatchReturned(msgs, r, t0)
	if len(got) != 2 || got[1].DLQMessageID != "d1" || got[1].MatchedBy != "body_sha256" {
		t.Fatalf("native, by hash: %+v", got)
	}
	j := JudgeVerify(Observation{Returned: got}, r)
	if !j.Done || j.Pass || !strings.Contains(j.Reasons[0], GoBack) {
		t.Errorf("returned: %+v", j)
	}
	two, three := 2.0, 3.0
	if j := JudgeVerify(Observation{Deleted: &two}, r); j.Done {
		t.Errorf("2 deleted of 3 moved passed: %+v", j)
	}
	if j := JudgeVerify(Observation{Deleted: &three}, r); !j.Pass {
		t.Errorf("3 deleted of 3: %+v", j)
	}
	if j := JudgeVerify(Observation{DLQVisible: 1}, Redriven{Left: 1, DestQueue: "orders"}); !j.Pass {
		t.Errorf("one left on purpose: %+v", j)
	}
	if j := JudgeVerify(Observation{DestInFlight: 1}, r); j.Done {
		t.Errorf("destination not drained passed: %+v", j)
	}
}

// MoveMetric counts nothing from before the move: the minute the move began
// in counts only when the minute before was quiet.
func TestMoveMetric(t *testing.T) {
	start := time.Date(2026, 11, 30, 21, 4, 30, 0, time.UTC)
	m := func(min int, v float64) Point {
		return Point{Time: time.Date(2026, 11, 30, 21, min, 0, 0, time.UTC), Value: v}
	}
	for _, tt := range []struct {
		name    string
		points  []Point
		want    float64
		nil     bool
		partial bool
	}{
		{"no data", nil, 0, true, false},
		{"quiet before: the first minute is the move's", []Point{m(4, 3), m(5, 2)}, 5, false, false},
		{"busy before: the first minute is left out", []Point{m(3, 40), m(4, 43), m(5, 2)}, 2, false, true},
		{"busy before, nothing after", []Point{m(3, 40), m(4, 43)}, 0, false, true},
		{"points before the move never count", []Point{m(2, 100), m(4, 3)}, 3, false, false},
	} {
		got, partial := MoveMetric(tt.points, start)
		switch {
		case tt.nil && got != nil, !tt.nil && (got == nil || *got != tt.want), partial != tt.partial:
			t.Errorf("%s: got %v partial %v; want %v (nil %v) partial %v", tt.name, got, partial, tt.want, tt.nil, tt.partial)
		}
	}
	aligned := time.Date(2026, 11, 30, 21, 4, 0, 0, time.UTC)
	if got, partial := MoveMetric([]Point{m(3, 40), m(4, 3)}, aligned); got == nil || *got != 3 || partial {
		t.Errorf("a move that began on the minute owns that minute: %v %v", got, partial)
	}
	r := Redriven{Moved: 4, DestQueue: "orders"}
	one, four := 1.0, 4.0
	if j := JudgeVerify(Observation{Sent: &one, Deleted: &four}, r); j.Pass || j.Done {
		t.Errorf("1 received of 4 moved passed: %+v", j)
	}
	if j := JudgeVerify(Observation{Sent: &one, Deleted: &four, Partial: true}, r); !j.Pass || len(j.Unchecked) != 1 {
		t.Errorf("a partial count is not judged but said: %+v", j)
	}
	if j := JudgeVerify(Observation{Sent: &four, Deleted: &four}, r); !j.Pass || len(j.Unchecked) != 0 {
		t.Errorf("evidence for both: %+v", j)
	}
}
