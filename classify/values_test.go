package classify

import "testing"

// A baseline field's values read most common first, ties in the values'
// order, cut after four (valueNames) or three (valueList) with "…".
func TestBaselineValuesMostCommonFirst(t *testing.T) {
	vals := map[string]int{"c": 2, "a": 2, "z": 9, "b": 1, "d": 1}
	if got, want := valueNames(vals), "z, a, c, b, …"; got != want {
		t.Errorf("valueNames = %q, want %q", got, want)
	}
	if got, want := valueList("v", vals), "v=z ×9, v=a ×2, v=c ×2, …"; got != want {
		t.Errorf("valueList = %q, want %q", got, want)
	}
	if got, want := valueNames(map[string]int{"1": 3, "2": 5}), "2, 1"; got != want {
		t.Errorf("valueNames = %q, want %q", got, want)
	}
}
