package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"yakor/postgres/pgtest"
)

// renderMarkdown renders each text with the web chat's Markdown renderer
// (web/ui/markdown.js) under node (testdata/markdown_render.mjs) and
// returns their HTML.
func renderMarkdown(t *testing.T, texts []string) []string {
	t.Helper()
	node, _ := nodeFor(t)
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "markdown_render.mjs"))
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("render Markdown under node: %v\n%s", err, stderr.String())
	}
	var out []string
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out) != len(texts) {
		t.Fatalf("node printed %q (%v), want %d texts of HTML", stdout.String(), err, len(texts))
	}
	return out
}

// TestMarkdownCases renders the case table testdata/markdown_cases.json
// (Markdown as lines, and the HTML it must give) with the web chat's
// renderer: GFM tables (alignment, padded and cut rows, inline formatting
// and escaped pipes in cells, where a table starts and ends), and hostile
// input (markup, script and data links, pipes in code) that must stay text.
func TestMarkdownCases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "markdown_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name     string
		Markdown []string
		HTML     string
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = strings.Join(c.Markdown, "\n")
	}
	got := renderMarkdown(t, texts)
	for i, c := range cases {
		if got[i] != c.HTML {
			t.Errorf("%s:\n%s\ngot  %s\nwant %s", c.Name, texts[i], got[i], c.HTML)
		}
	}
}

// TestMarkdownTableBound: a wide header over many short lines would draw
// rows × columns cells; the table ends once its rows need 65,536 empty
// cells, and the rest is text.
func TestMarkdownTableBound(t *testing.T) {
	const cols, rows = 300, 1000
	var b strings.Builder
	b.WriteString(strings.Repeat("| h ", cols) + "|\n" + strings.Repeat("|---", cols) + "|\n")
	for range rows {
		b.WriteString("x\n")
	}
	html := renderMarkdown(t, []string{b.String()})[0]
	cells := strings.Count(html, "<td")
	if cells > 65536+cols || !strings.Contains(html, "<p>x<br>x") {
		t.Errorf("%d cells drawn, want at most %d, then the short lines as text", cells, 65536+cols)
	}
	if kept := cells / cols; kept < 65536/(cols-1) {
		t.Errorf("%d rows kept before the bound, want %d", kept, 65536/(cols-1))
	}
}

// TestBrowserMarkdownTable: a price list written as a Markdown table shows
// as a table in the chat, its prices aligned right as the delimiter row
// says; a table wider than the message scrolls inside it, not the page.
func TestBrowserMarkdownTable(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	s := startServer(t, pgtest.DataDir(t), "--database-url", url, "--research-schedule", "off", "--log-level", "warn")
	p := openTab(t, startChromium(t), "http://"+s.addr, 1280, 800, false)
	p.navigate("/")
	p.visible(tid("empty-state"))
	p.send("Price list:\n\n| Item | Price, ₽ |\n|:-----|-----:|\n| **oak** board | 3400 |\n| birch \\| panel | 1250 |\n| pine shelf | `780` |", false)
	msg := `[...document.querySelectorAll('[data-testid=message][data-role=user]')].pop()`
	got := eval[[]string](p, `(() => { const m = `+msg+`; return [...m.querySelectorAll('table tr')].map((r) => [...r.children].map((c) => c.tagName + ':' + c.textContent + ':' + getComputedStyle(c).textAlign).join(' | ')); })()`)
	want := []string{
		"TH:Item:left | TH:Price, ₽:right",
		"TD:oak board:left | TD:3400:right",
		"TD:birch | panel:left | TD:1250:right",
		"TD:pine shelf:left | TD:780:right",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		p.fail("the price list's table rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := eval[int](p, msg+`.querySelectorAll('td strong, td code').length`); n != 2 {
		p.fail("%d formatted spans in the cells, want 2", n)
	}
	p.shot("markdown-table-desktop")

	wide := "| " + strings.Repeat("column header | ", 40) + "\n|" + strings.Repeat("---|", 40) + "\n| " + strings.Repeat("a long cell value | ", 40)
	p.send(wide, false)
	fits := eval[[]bool](p, `(() => { const w = `+msg+`.querySelector('.table-wrap'); return [document.documentElement.scrollWidth <= window.innerWidth, w.scrollWidth > w.clientWidth, w.getBoundingClientRect().right <= window.innerWidth]; })()`)
	if !fits[0] || !fits[1] || !fits[2] {
		p.fail("a wide table: the page does not scroll sideways %v, the table scrolls in its message %v, stays in the window %v", fits[0], fits[1], fits[2])
	}
}
