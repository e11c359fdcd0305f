package plural

import "testing"

func TestOf(t *testing.T) {
	tests := []struct {
		n    int
		one  string
		many []string
		want string
	}{
		{1, "message", nil, "1 message"},
		{340, "message", nil, "340 messages"},
		{0, "message", nil, "0 messages"},
		{2, "entry", nil, "2 entries"},
		{1, "entry", nil, "1 entry"},
		{3, "day", nil, "3 days"},
		{2, "match", nil, "2 matches"},
		{2, "error signature", nil, "2 error signatures"},
		{2, "person", []string{"people"}, "2 people"},
		{1, "person", []string{"people"}, "1 person"},
	}
	for _, tt := range tests {
		if got := Of(tt.n, tt.one, tt.many...); got != tt.want {
			t.Errorf("Of(%d, %q) = %q, want %q", tt.n, tt.one, got, tt.want)
		}
	}
}

func TestSpoken(t *testing.T) {
	for in, want := range map[string]string{"not_proven": "not proven", "not_alive": "not alive", "pass": "pass", "": ""} {
		if got := Spoken(in); got != want {
			t.Errorf("Spoken(%q) = %q, want %q", in, got, want)
		}
	}
}
