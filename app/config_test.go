package app_test

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"yakor/app"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func parse(args []string, getenv func(string) string) (app.Config, error) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return app.Parse(fs, args, getenv)
}

func TestParse(t *testing.T) {
	t.Run("Defaults", func(t *testing.T) {
		c, err := parse(nil, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if c.Addr != "127.0.0.1:8080" || c.DataDir != "./.yakor" || c.WindowChars != 20000 || c.MaxMessageChars != 100000 ||
			c.SearchRounds != 2 || c.Chat.Provider != "offline" || c.Helper.Provider != "offline" || c.Embed.Provider != "offline" ||
			c.ModelTimeout != 120*time.Second || !c.Grading || c.SearchTool {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("FlagsWinOverEnv", func(t *testing.T) {
		c, err := parse([]string{"--window-chars", "500"}, env(map[string]string{"YAKOR_WINDOW_CHARS": "900", "YAKOR_ADDR": "127.0.0.1:9"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.WindowChars != 500 || c.Addr != "127.0.0.1:9" {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("ModelNamedMeansOpenAI", func(t *testing.T) {
		c, err := parse(nil, env(map[string]string{"YAKOR_CHAT_MODEL": "llama3.1", "OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.Chat.Provider != "openai" || c.Helper.Provider != "openai" || c.Helper.Model != "llama3.1" || c.Embed.Provider != "offline" {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("BooleanFlags", func(t *testing.T) {
		// A boolean alone turns it on; the next flag is not taken for its value.
		c, err := parse([]string{"--search-tool", "--addr", "127.0.0.1:9", "--grading=false"}, env(map[string]string{"YAKOR_COMPACTION": "false"}))
		if err != nil {
			t.Fatal(err)
		}
		if !c.SearchTool || c.Addr != "127.0.0.1:9" || c.Grading || c.Compaction {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("ZeroSearchRoundsIsOff", func(t *testing.T) {
		c, err := parse([]string{"--search-rounds", "0"}, env(nil))
		if err != nil || c.SearchRounds != 0 {
			t.Fatalf("%+v %v", c, err)
		}
	})
	t.Run("Help", func(t *testing.T) {
		var out strings.Builder
		fs := flag.NewFlagSet("yakor serve", flag.ContinueOnError)
		fs.SetOutput(&out)
		if _, err := app.Parse(fs, []string{"--help"}, env(nil)); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("err = %v, want flag.ErrHelp", err)
		}
		for _, want := range []string{"usage: yakor serve", "--window-chars", "YAKOR_WINDOW_CHARS", `default "20000"`, "--search-tool\n"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("usage lacks %q:\n%s", want, out.String())
			}
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		says string
	}{
		{"BadNumber", []string{"--window-chars", "many"}, nil, "window-chars"},
		{"BadNumberInEnv", nil, map[string]string{"YAKOR_WINDOW_CHARS": "many"}, "YAKOR_WINDOW_CHARS"},
		{"BadBool", []string{"--grading=maybe"}, nil, "grading"},
		{"BadDuration", []string{"--model-timeout", "soon"}, nil, "model-timeout"},
		{"BadFraction", []string{"--memory-merge", "2"}, nil, "memory-merge"},
		{"BadProvider", []string{"--chat-provider", "magic"}, nil, "openai or offline"},
		{"OpenAIWithoutModel", []string{"--chat-provider", "openai"}, nil, "YAKOR_CHAT_MODEL"},
		{"BadAddr", []string{"--addr", "nowhere"}, nil, "addr"},
		{"BadSchedule", []string{"--research-schedule", "often"}, nil, "research-schedule"},
		{"BadQueue", []string{"--job-workers", "upkeep=4,anchors=2"}, nil, `job-workers "anchors=2"`},
		{"BadQueueWorkers", []string{"--job-workers", "upkeep=0"}, nil, "at least 1 worker"},
		{"BadGradeRate", []string{"--grade-rate", "0"}, nil, "grade-rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.args, env(tc.env))
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want one saying %q", err, tc.says)
			}
		})
	}
}

// TestDefaultsAreThePackages': the settings' defaults are the packages'
// own, read from their DefaultConfig (a default written twice would drift).
func TestSettingsDefaults(t *testing.T) {
	c := app.DefaultConfig()
	for _, s := range app.Settings() {
		if got, want := s.Value(&c).String(), s.Default(); got != want {
			t.Errorf("--%s: %q, default %q", s.Flag, got, want)
		}
		if s.Flag == "" || s.Env == "" || s.Help == "" || s.Group == "" {
			t.Errorf("setting %+v lacks a flag, variable, help or group", s)
		}
	}
}
