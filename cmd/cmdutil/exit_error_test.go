package cmdutil

import "testing"

// TestAskedJSON reads --output from the arguments as cobra would, for an
// error met before cobra parsed them: the last --output wins, nothing
// after -- is a flag.
func TestAskedJSON(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"inspect", "--output", "json"}, true},
		{[]string{"--output=json", "--bogus"}, true},
		{[]string{"-o", "json"}, true},
		{[]string{"-ojson"}, true},
		{[]string{"-o=json"}, true},
		{[]string{"-o", "json", "--output", "table"}, false},
		{[]string{"--", "-o", "json"}, false},
		{[]string{"inspect", "--queue", "json"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := askedJSON(tt.args); got != tt.want {
			t.Errorf("askedJSON(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
