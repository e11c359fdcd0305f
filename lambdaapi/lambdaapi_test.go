package lambdaapi

import (
	"strings"
	"testing"
)

func TestRecordedRestoresStateBeforeFirstChange(t *testing.T) {
	five := int32(5)
	enabled := MappingState{Enabled: true}
	paused := MappingState{Enabled: false}
	figures := []MappingChange{
		{Action: ActionPause, UUID: "u1", Before: enabled, After: paused},
		{Action: ActionPause, UUID: "u2", Before: paused, After: paused},
		{Action: ActionCap, UUID: "u1", Before: paused, After: MappingState{MaximumConcurrency: &five}},
		{Action: ActionCap, UUID: "u1", Before: enabled, DryRun: true},
	}
	got, err := Recorded(figures, "u1")
	if err != nil || got == nil || !got.Enabled || got.MaximumConcurrency != nil {
		t.Fatalf("Recorded = %+v, %v; want enabled, no cap", got, err)
	}
	figures = append(figures, MappingChange{Action: ActionResume, UUID: "u1", Before: paused, After: enabled})
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

func TestFunctionName(t *testing.T) {
	for in, want := range map[string]string{
		"arn:aws:lambda:eu-west-1:123456789012:function:orders":       "orders",
		"arn:aws:lambda:eu-west-1:123456789012:function:orders:live":  "orders",
		"arn:aws-cn:lambda:cn-north-1:123456789012:function:orders:7": "orders",
		"orders": "orders",
		"arn:aws:lambda:eu-west-1:123456789012:layer:x":   "arn:aws:lambda:eu-west-1:123456789012:layer:x",
		"arn:aws:lambda:eu-west-1:123456789012:function:": "arn:aws:lambda:eu-west-1:123456789012:function:",
		"": "",
	} {
		if got := FunctionName(in); got != want {
			t.Errorf("FunctionName(%q) = %q, want %q", in, got, want)
		}
	}
}
