package app

import (
	"fmt"
	"strings"
)

// Markers around the generated part of docs/configuration.md.
const (
	DocBegin = "<!-- settings: generated from app.Settings by `go test ./app -run TestConfigurationDoc -update`; do not edit by hand -->"
	DocEnd   = "<!-- end of settings -->"
)

// SettingsDoc is the settings table of docs/configuration.md, a Markdown
// table per group: flag, environment variable, default, what it does.
func SettingsDoc() string {
	var b strings.Builder
	group := ""
	for _, s := range Settings() {
		if s.Group != group {
			if group != "" {
				b.WriteString("\n")
			}
			group = s.Group
			fmt.Fprintf(&b, "### %s\n\n| flag | environment | default | what it does |\n|---|---|---|---|\n", group)
		}
		def := "—"
		if d := s.Default(); d != "" {
			def = "`" + d + "`"
		}
		fmt.Fprintf(&b, "| `--%s` | `%s` | %s | %s |\n", s.Flag, s.Env, def, strings.ReplaceAll(s.Help, "|", `\|`))
	}
	return b.String()
}
