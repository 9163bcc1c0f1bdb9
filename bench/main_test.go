package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"yakor/app/apptest"
)

// yakorBin is the yakor binary, built once for the tests that serve it
// (the load benchmark runs `yakor serve` as a subprocess).
var yakorBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "yakor-bin")
	if err != nil {
		panic(err)
	}
	if yakorBin, err = apptest.BuildBinary(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// noEnv is an empty environment.
func noEnv(string) string { return "" }

// wantAll fails t unless text holds each of want.
func wantAll(t *testing.T, text string, want ...string) {
	t.Helper()
	var missing []string
	for _, w := range want {
		if !strings.Contains(text, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("output lacks %q:\n%s", missing, text)
	}
}

// readJSON reads the JSON file path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

// TestCommandsHelp: every benchmark answers -h and --help with its usage on
// stdout and flag.ErrHelp, which yakor's main takes for success.
func TestCommandsHelp(t *testing.T) {
	for _, c := range Commands() {
		for _, h := range []string{"-h", "--help"} {
			var stdout, stderr bytes.Buffer
			err := c.Run(t.Context(), []string{h}, &stdout, &stderr, noEnv)
			if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stdout.String(), "usage: yakor bench "+c.Name) || stderr.Len() > 0 {
				t.Errorf("bench %s %s: %v; stdout %.200q, stderr %.200q", c.Name, h, err, stdout.String(), stderr.String())
			}
		}
	}
}
