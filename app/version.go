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

// String is the version as one word. Go makes a build of a checkout's
// commit a pseudo-version that names it ("v0.0.0-20261203085038-cbd703027dbb",
// "+dirty" when the tree had changes); a version that does not name the
// commit gets it appended ("(devel)+cbd703027dbb").
func (v BuildInfo) String() string {
	rev := v.Revision[:min(12, len(v.Revision))]
	if rev == "" || strings.Contains(v.Version, rev) {
		return v.Version
	}
	if v.Modified {
		return v.Version + "+" + rev + "-dirty"
	}
	return v.Version + "+" + rev
}
