package main

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	t.Run("Defaults", func(t *testing.T) {
		c, err := parseConfig(newFlagSet("t", io.Discard), nil, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if c.Addr != "127.0.0.1:8080" || c.DataDir != "./.yakor" || c.WindowChars != 20000 || c.MaxMessageChars != 100000 ||
			c.Chat.Provider != "offline" || c.Helper.Provider != "offline" || c.Embed.Provider != "offline" || c.ModelTimeout != 120*time.Second {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("FlagsWinOverEnv", func(t *testing.T) {
		c, err := parseConfig(newFlagSet("t", io.Discard), []string{"--window-chars", "500"},
			env(map[string]string{"YAKOR_WINDOW_CHARS": "900", "YAKOR_ADDR": "127.0.0.1:9"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.WindowChars != 500 || c.Addr != "127.0.0.1:9" {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("ModelNamedMeansOpenAI", func(t *testing.T) {
		c, err := parseConfig(newFlagSet("t", io.Discard), nil, env(map[string]string{"YAKOR_CHAT_MODEL": "llama3.1", "OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.Chat.Provider != "openai" || c.Helper.Provider != "openai" || c.Helper.Model != "llama3.1" || c.Embed.Provider != "offline" {
			t.Fatalf("%+v", c)
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"BadNumber", []string{"--window-chars", "many"}, "window-chars"},
		{"BadDuration", []string{"--model-timeout", "soon"}, "model-timeout"},
		{"BadProvider", []string{"--chat-provider", "magic"}, "openai or offline"},
		{"OpenAIWithoutModel", []string{"--chat-provider", "openai"}, "YAKOR_CHAT_MODEL"},
		{"BadAddr", []string{"--addr", "nowhere"}, "addr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig(newFlagSet("t", io.Discard), tc.args, env(nil))
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want one saying %q", err, tc.says)
			}
		})
	}
}

// TestConfigurationDoc: every setting is documented in the settings table of
// docs/configuration.md with its flag and its environment variable.
func TestConfigurationDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range settings() {
		row := "| `--" + s.flag + "` | `" + s.env + "` |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/configuration.md's settings table has no row starting %s", row)
		}
	}
}
