package app_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"yakor/app"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md's settings from app.Settings")

// TestConfigurationDoc: docs/configuration.md holds the settings table
// generated from app.Settings, so a setting added, renamed or given
// another default shows there; -update rewrites it.
func TestConfigurationDoc(t *testing.T) {
	const path = "../docs/configuration.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	begin, end := strings.Index(doc, app.DocBegin), strings.Index(doc, app.DocEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s lacks the markers %q … %q", path, app.DocBegin, app.DocEnd)
	}
	want := doc[:begin] + app.DocBegin + "\n\n" + app.SettingsDoc() + "\n" + doc[end:]
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Fatalf("%s's settings are not app.Settings': run go test ./app -run TestConfigurationDoc -update", path)
	}
	for _, s := range app.Settings() {
		if !strings.Contains(doc, "| `--"+s.Flag+"` | `"+s.Env+"` |") {
			t.Errorf("no row for --%s", s.Flag)
		}
	}
}
