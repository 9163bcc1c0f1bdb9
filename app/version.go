package app

import (
	"runtime/debug"
	"strings"
)

// BuildInfo is what the binary knows of its build: the module version and
// the version control revision it was built from.
type BuildInfo struct {
	Version  string `json:"version"`            // the module's version; "(devel)" for a build of a checkout
	Revision string `json:"revision,omitempty"` // the VCS commit, when the build recorded it
	Time     string `json:"time,omitempty"`     // the commit's time
	Modified bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	Go       string `json:"go"`
}

// Version reads the build information Go stamps into the binary.
func Version() BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return BuildInfo{Version: "unknown"}
	}
	v := BuildInfo{Version: bi.Main.Version, Go: bi.GoVersion}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	for _, s := range bi.Settings {
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

// String is the version as one word: "(devel)+1a2b3c4d5e6f" or
// "v1.2.0+1a2b3c4d5e6f-dirty".
func (v BuildInfo) String() string {
	var b strings.Builder
	b.WriteString(v.Version)
	if v.Revision != "" {
		b.WriteString("+" + v.Revision[:min(12, len(v.Revision))])
		if v.Modified {
			b.WriteString("-dirty")
		}
	}
	return b.String()
}
