package target

import "testing"

func TestVersionText(t *testing.T) {
	for q, want := range map[string]string{"": "$LATEST (unqualified)", "$LATEST": "$LATEST", "7": "version 7", "live": "alias live → version 7"} {
		if got := VersionText(q, "7"); got != want {
			t.Errorf("VersionText(%q) = %q", q, got)
		}
	}
}

func TestFunctionRef(t *testing.T) {
	for in, want := range map[string][2]string{
		"orders":      {"orders", ""},
		"orders:live": {"orders", "live"},
		"arn:aws:lambda:us-east-1:1:function:orders":   {"arn:aws:lambda:us-east-1:1:function:orders", ""},
		"arn:aws:lambda:us-east-1:1:function:orders:7": {"arn:aws:lambda:us-east-1:1:function:orders", "7"},
	} {
		if fn, q := FunctionRef(in); fn != want[0] || q != want[1] {
			t.Errorf("%s: %s %s", in, fn, q)
		}
	}
}
