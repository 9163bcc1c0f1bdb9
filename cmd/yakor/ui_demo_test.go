package main

import (
	"cmp"
	"os"
	"regexp"
	"strings"
	"testing"

	"yakor/postgres/pgtest"
)

// TestBrowserReadmeDemo runs the README's "Try it in the web chat", word
// for word as the README writes it, in a headless Chromium against
// `yakor serve` in the offline mode: with the default window, where the
// price list is in view, and with `--window-chars 400`, which the README
// suggests for watching it leave. Either way the reply to the question
// holds the oak board's price, and the name and the budget become facts.
// The command-line demo's messages too.
func TestBrowserReadmeDemo(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	demo := demoMessages(t, string(readme))
	browser := startChromium(t)
	for _, window := range []string{"", demo.window} {
		t.Run("window "+window, func(t *testing.T) {
			flags := []string{"--research-schedule", "off", "--log-level", "warn"}
			if window != "" {
				flags = append(flags, "--window-chars", window)
			}
			url, _ := pgtest.NewURL(t)
			s := startServer(t, pgtest.DataDir(t), append([]string{"--database-url", url}, flags...)...)
			p := openTab(t, browser, "http://"+s.addr, 1280, 800, false)
			p.navigate("/")
			p.click(tid("new-thread"))
			for _, m := range demo.before {
				p.send(m, false)
			}
			reply := p.text("#m-" + p.send(demo.question, false))
			t.Logf("%s\n→ %s", demo.question, reply)
			if !strings.Contains(reply, "3400") {
				p.fail("the reply to %q does not hold the price 3400: %q", demo.question, reply)
			}
			if strings.Contains(reply, "No language model is configured") {
				p.fail("the notice is repeated past the first reply: %q", reply)
			}
			p.shot("readme-demo-" + cmp.Or(window, "default"))
			p.send(demo.remember, false)
			p.click(tid("tab-memory"))
			p.waitJS("the name and the budget as facts", `(t => t.includes('Ann') && t.includes('60000'))([...document.querySelectorAll('[data-testid=fact-text]')].map(e => e.textContent).join(' | '))`, uiWait)
			p.waitJS("an anchor", `document.querySelectorAll('[data-testid=anchor-item]').length > 0`, uiWait)
		})
	}
	// The command-line demo's two messages, typed into the chat.
	t.Run("command line", func(t *testing.T) {
		url, _ := pgtest.NewURL(t)
		s := startServer(t, pgtest.DataDir(t), "--database-url", url, "--research-schedule", "off", "--log-level", "warn")
		p := openTab(t, browser, "http://"+s.addr, 1280, 800, false)
		p.navigate("/")
		p.click(tid("new-thread"))
		p.send(demo.cli[0], false)
		reply := p.text("#m-" + p.send(demo.cli[1], false))
		t.Logf("%s\n→ %s", demo.cli[1], reply)
		if !strings.Contains(reply, "3400") {
			p.fail("the reply to %q does not hold the price 3400: %q", demo.cli[1], reply)
		}
	})
}

// readmeDemo is what the README's web chat walk-through says to write.
type readmeDemo struct {
	before   []string // the price list and the talk about something else
	question string   // the question about the price
	remember string   // the facts
	window   string   // the --window-chars it suggests
	// cli is the command-line demo's messages: a price list and a
	// question about it.
	cli []string
}

// demoMessages reads the walk-through's messages, the italic sentences of
// its numbered steps, from the README.
func demoMessages(t *testing.T, readme string) readmeDemo {
	t.Helper()
	start := strings.Index(readme, "### Try it in the web chat")
	end := strings.Index(readme[start:], "\nThe same from the command line")
	if start < 0 || end < 0 {
		t.Fatal("the README has no web chat walk-through")
	}
	var d readmeDemo
	italic := regexp.MustCompile(`(?:^|[^*])\*([^*]+)\*(?:$|[^*])`)
	for _, step := range regexp.MustCompile(`(?m)^\d+\. `).Split(readme[start:start+end], -1)[1:] {
		for _, m := range italic.FindAllStringSubmatch(step, -1) {
			text := strings.Join(strings.Fields(m[1]), " ")
			switch {
			case strings.HasPrefix(text, "Remember"):
				d.remember = text
			case strings.HasSuffix(text, "?") && d.question == "":
				d.question = text
			case d.question == "" && strings.HasSuffix(text, "."):
				d.before = append(d.before, text)
			}
		}
	}
	if m := regexp.MustCompile(`--window-chars (\d+)`).FindStringSubmatch(readme[start : start+end]); m != nil {
		d.window = m[1]
	}
	cliStart := start + end
	cliEnd := strings.Index(readme[cliStart:], "\n## ")
	for _, m := range regexp.MustCompile(`'\{"content":"([^"]+)"\}'`).FindAllStringSubmatch(readme[cliStart:cliStart+cliEnd], -1) {
		d.cli = append(d.cli, m[1])
	}
	if len(d.before) < 3 || d.question == "" || d.remember == "" || d.window == "" || len(d.cli) != 2 {
		t.Fatalf("the README's walk-through reads as %+v", d)
	}
	return d
}
