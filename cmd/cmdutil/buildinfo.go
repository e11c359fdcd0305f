package cmdutil

import (
	"runtime/debug"
	"strings"
)

// BuildVersion is what the binary knows of its own build: the module
// version (a tag when installed with `go install …@v1.2.3`, "(devel)" for a
// local build) and, when the build recorded them, the VCS revision, its
// commit time and whether the tree had uncommitted changes.
type BuildVersion struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// ReadBuildVersion reads runtime/debug.ReadBuildInfo.
func ReadBuildVersion() BuildVersion {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return BuildVersion{Version: "(devel)"}
	}
	return versionOf(info)
}

// versionOf is the BuildVersion of info.
func versionOf(info *debug.BuildInfo) BuildVersion {
	v := BuildVersion{Version: info.Main.Version}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one line `mfdlq --version` prints: "mfdlq v1.2.3 (commit
// 0123456789ab, 2026-12-01T10:00:00Z, modified)".
func (v BuildVersion) String() string {
	var b strings.Builder
	b.WriteString("mfdlq " + v.Version)
	var extra []string
	if v.Revision != "" {
		extra = append(extra, "commit "+v.Revision[:min(12, len(v.Revision))])
	}
	if v.Time != "" {
		extra = append(extra, v.Time)
	}
	if v.Modified {
		extra = append(extra, "modified")
	}
	if len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	}
	return b.String()
}
