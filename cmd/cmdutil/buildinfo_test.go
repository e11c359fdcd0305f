package cmdutil

import (
	"runtime/debug"
	"testing"
)

// TestVersionLine: the module version, and the VCS stamps when the build
// recorded them (a `go build` in a git checkout with -buildvcs).
func TestVersionLine(t *testing.T) {
	tests := []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{}, "mfdlq (devel)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "mfdlq v1.4.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, "mfdlq (devel) (commit 0123456789ab, 2026-12-01T10:00:00Z, modified)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"},
		}}, "mfdlq v1.4.0 (commit abc)"},
	}
	for _, tt := range tests {
		if got := versionOf(tt.info).String(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
