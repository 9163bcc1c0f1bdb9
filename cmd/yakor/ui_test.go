package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"yakor/postgres/pgtest"
)

// TestBrowserUI drives the web chat in a headless Chromium against a real
// `yakor serve` with the offline model and a small window, so the offline
// model searches the history for what scrolled out.
func TestBrowserUI(t *testing.T) {
	start := time.Now()
	url, _ := pgtest.NewURL(t)
	s := startServer(t, pgtest.DataDir(t), "--database-url", url, "--window-chars", "600",
		"--max-message-chars", "3000", "--research-schedule", "off", "--log-level", "warn")
	base := "http://" + s.addr
	browser := startChromium(t)
	t.Logf("server and browser up in %v; screenshots in %s", time.Since(start).Round(time.Millisecond), screenshotDir(t))

	var thread string
	t.Run("MainFlow", func(t *testing.T) { thread = mainFlow(t, openTab(t, browser, base, 1280, 800, false)) })
	t.Run("XSS", func(t *testing.T) { xss(t, s, openTab(t, browser, base, 1280, 800, false)) })
	t.Run("MarkdownAndSummary", func(t *testing.T) { markdownAndSummary(t, s, openTab(t, browser, base, 1280, 800, false)) })
	t.Run("ErrorsStopRetry", func(t *testing.T) { errorsStopRetry(t, openTab(t, browser, base, 1280, 800, false)) })
	t.Run("Research", func(t *testing.T) { research(t, url, openTab(t, browser, base, 1280, 800, false)) })
	t.Run("ManyThreads", func(t *testing.T) { manyThreads(t, s, openTab(t, browser, base, 1280, 800, false)) })
	t.Run("Phone", func(t *testing.T) {
		if thread == "" {
			t.Fatal("the main flow made no thread to show")
		}
		phone(t, openTab(t, browser, base, 390, 844, true), thread)
	})
	t.Logf("browser tests took %v", time.Since(start).Round(time.Millisecond))
}

func mainFlow(t *testing.T, p *tab) string {
	// The empty app: the offline banner and what to do.
	p.navigate("/")
	p.visible(tid("offline-banner"))
	if got := p.text(tid("offline-banner")); !strings.Contains(got, "No language model is configured") || !strings.Contains(got, "OPENAI_BASE_URL") {
		p.fail("offline banner says %q", got)
	}
	p.visible(tid("empty-state"))
	if got := p.text(tid("empty-state")); !strings.Contains(got, "Start a conversation: type a message below") {
		p.fail("empty state says %q", got)
	}
	p.visible(tid("threads-empty"))
	p.shot("empty-desktop")

	// A new conversation: the first message creates the thread; the reply streams.
	p.click(tid("new-thread"))
	eval[bool](p, `window.__sawStream = false, new MutationObserver(() => { if (document.querySelector('[data-testid=streaming-reply]')) window.__sawStream = true }).observe(document.body, {subtree: true, childList: true}), true`)
	priceReply := p.send("Price list: oak board 3400, birch panel 1250, pine shelf 780. The boards come from the old sawmill up north.", true)
	if !eval[bool](p, `window.__sawStream`) {
		p.fail("the reply was never shown while streaming")
	}
	if got := p.text("#m-" + priceReply); !strings.Contains(got, "offline") {
		p.fail("reply %s says %q", priceReply, got)
	}
	thread := eval[string](p, `location.pathname.split('/').pop()`)
	p.waitJS("the thread in the sidebar", `[...document.querySelectorAll('[data-testid=thread-title]')].some(e => e.textContent.startsWith('Price list: oak board'))`, uiWait)
	p.shot("chat-desktop")

	// Filler until the price list scrolls out of the 600-character window,
	// then a question about it that the anchors' key data (its prices; the
	// sawmill's line names no day, name or event, so it is no note) do
	// not answer: the offline model searches the history.
	for i := 1; i <= 3; i++ {
		p.send(fmt.Sprintf("Filler note %d: the weather in the garden is mild, tomatoes and cucumbers grow well this summer.", i), false)
	}
	question := p.send("Which sawmill do the boards come from?", false)
	chip := "#m-" + question + " " + tid("search-chip")
	p.visible(chip)
	if got := p.text(chip); !strings.Contains(got, "Searched history") || !strings.Contains(got, "sawmill") || !strings.Contains(got, "1 hit") { // the price list (the offline model's reply after it is no hit)
		p.fail("search chip says %q", got)
	}

	// The inspector of that reply: layers, the search and its hits.
	p.click("#m-" + question + " " + tid("why-button"))
	p.visible(tid("inspector") + " " + tid("stacked-bar"))
	if n := p.count(tid("stacked-bar") + " " + tid("layer-seg")); n < 3 {
		p.fail("stacked bar has %d segments", n)
	}
	if got := p.text(tid("layers-table")); !strings.Contains(got, "window") || !strings.Contains(got, "600") {
		p.fail("layers table says %q", got)
	}
	p.visible(tid("inspector-search"))
	if got := p.text(tid("inspector-search")); !strings.Contains(got, "sawmill") {
		p.fail("inspector search says %q", got)
	}
	hit := tid("inspector") + " " + tid("inspector-hit")
	if got := p.text(hit); !strings.Contains(got, "Price list: oak board 3400") {
		p.fail("inspector hit says %q", got)
	}
	p.visible(tid("timings"))
	// The offline model's replies are not graded (they are canned); the
	// user's thumb below grades this one.
	p.waitJS("the reply not graded", `!!document.querySelector('[data-testid=inspector] [data-testid=grade-pending]')`, uiWait)
	p.shot("inspector-desktop")
	hitID := eval[string](p, `document.querySelector('[data-testid=inspector] [data-testid=inspector-hit]').dataset.messageId`)
	// The inspector redraws as the reply's jobs report (grade, anchors,
	// research): a click that met a button being replaced is clicked again.
	p.click(hit)
	p.waitJS("the hit's message in focus", `(document.activeElement && document.activeElement.id === 'm-`+hitID+`') || `+
		`(document.querySelector('[data-testid=inspector] [data-testid=inspector-hit]')?.click(), false)`, 5*time.Second)

	// The memory panel: anchors arrive from a job after the reply.
	p.click(tid("tab-memory"))
	p.waitJS("an anchor", `document.querySelectorAll('[data-testid=anchor-item]').length > 0 && !!document.querySelector('[data-testid=anchor-chain]')`, uiWait)
	if got := p.text(tid("anchor-chain")); !strings.Contains(got, "Price list") {
		p.fail("topic chain says %q", got)
	}

	// Facts: extracted from a message, edited, deleted.
	p.send("My name is Anna.", false)
	p.waitJS("the fact about Anna", `[...document.querySelectorAll('[data-testid=fact-text]')].some(e => e.textContent.includes('Anna'))`, uiWait)
	p.shot("memory-desktop")
	fact := eval[string](p, `[...document.querySelectorAll('[data-testid=fact-item]')].find(e => e.textContent.includes('Anna')).dataset.factId`)
	item := fmt.Sprintf(`[data-fact-id="%s"]`, fact)
	p.click(item + " " + tid("source-link"))
	p.waitJS("the fact's source message in focus", `document.activeElement && document.activeElement.dataset.role === 'user' && document.activeElement.textContent.includes('My name is Anna')`, 5*time.Second)
	p.click(item + " " + tid("fact-edit"))
	p.do("edit the fact", chromedp.SetValue(chromedp.CSS(item+" "+tid("fact-edit-input")), "The user's name is Anna Petrova."))
	p.click(item + " " + tid("fact-save"))
	p.waitJS("the edited fact", fmt.Sprintf(`(document.querySelector('%s [data-testid=fact-text]') || {}).textContent === "The user's name is Anna Petrova."`, item), uiWait)
	p.clickFor(item+" "+tid("fact-delete"), "the confirm dialog", `(() => { const d = document.querySelector('[data-testid=confirm-dialog]'); return !!d && d.open; })()`)
	p.click(tid("confirm-ok"))
	p.waitJS("the fact gone", fmt.Sprintf(`!document.querySelector('%s')`, item), uiWait)

	// Feedback: a thumb up shows as chosen at once, and as busy until the
	// server has stored it (the next send recalls what it routed).
	up := "#m-" + question + " " + tid("thumb-up")
	p.click(up)
	p.waitJS("the thumb chosen and stored", fmt.Sprintf(`(b => b.getAttribute('aria-pressed') === 'true' && b.getAttribute('aria-busy') === 'false')(document.querySelector('%s'))`, up), uiWait)

	// The offline model's replies only quote the conversation back: liked,
	// they are still no lesson. A study note is, and enters the next
	// similar prompt.
	eval[bool](p, `window.__noted = false, fetch('/api/v1/experiences', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({level: 2, topic: 'oak boards', title: 'Oak board prices at the kitchen supplier', note: 'An oak board costs 3400 per sheet at the kitchen supplier.'})}).then(r => window.__noted = r.ok), true`)
	p.waitJS("the study note stored", `window.__noted === true`, uiWait)
	p.send("What did the oak board cost again?", false)
	p.waitJS("the recalled note", `[...document.querySelectorAll('[data-testid=prompt-memory] [data-testid=recalled-item]')].some(e => e.textContent.includes('Study note') && e.textContent.includes('Oak board prices'))`, uiWait)
	if got := p.text(tid("prompt-memory")); strings.Contains(got, "Example") {
		p.fail("the offline model's liked reply became an example: %q", got)
	}

	// A refused message (too long) shows the server's words and a Retry.
	p.do("fill a long message", chromedp.SetValue(chromedp.CSS(tid("composer-input")), strings.Repeat("long ", 700)))
	p.click(tid("send"))
	p.visible(tid("turn-error"))
	if got := p.text(tid("turn-error")); !strings.Contains(got, "3000") || p.count(tid("turn-error")+" "+tid("retry")) != 1 {
		p.fail("failed turn says %q", got)
	}
	p.click(tid("dismiss"))
	p.waitJS("the failed turn dismissed", `!document.querySelector('[data-testid=turn-error]')`, uiWait)

	// Rename in place, and filter the list by title.
	p.click(fmt.Sprintf(`[data-thread-id="%s"] %s`, thread, tid("thread-rename")))
	p.do("rename", chromedp.SetValue(chromedp.CSS(tid("thread-rename-input")), "Oak prices"),
		chromedp.SendKeys(chromedp.CSS(tid("thread-rename-input")), "\n"))
	p.waitJS("the new title", `document.querySelector('[data-testid=thread-heading]').textContent === 'Oak prices'`, uiWait)
	p.do("search titles", chromedp.SendKeys(chromedp.CSS(tid("thread-search")), "zebra"))
	p.visible(tid("threads-empty"))
	eval[bool](p, `(s => (s.value = '', s.dispatchEvent(new Event('input')), true))(document.querySelector('[data-testid=thread-search]'))`)
	p.do("search titles", chromedp.SendKeys(chromedp.CSS(tid("thread-search")), "oak"))
	p.waitJS("the filtered list", `[...document.querySelectorAll('[data-testid=thread-title]')].map(e => e.textContent).join() === 'Oak prices'`, uiWait)

	// After a reload everything is still there.
	n := p.count(tid("message"))
	p.do("reload", chromedp.Reload())
	p.waitJS("the messages again", fmt.Sprintf(`document.querySelectorAll('[data-testid=message]').length === %d`, n), uiWait)
	p.waitJS("the thread in the list", `[...document.querySelectorAll('[data-testid=thread-title]')].some(e => e.textContent === 'Oak prices')`, uiWait)
	p.waitJS("the anchors again", `document.querySelectorAll('[data-testid=anchor-item]').length > 0`, uiWait)
	p.do("scroll to the reply", chromedp.ScrollIntoView(chromedp.CSS("#m-"+question)))
	p.waitJS("the thumb still chosen", fmt.Sprintf(`document.querySelector('%s').getAttribute('aria-pressed') === 'true'`, up), uiWait)

	// The interface speaks Russian too.
	p.click(tid("lang-ru"))
	p.waitJS("Russian", `document.querySelector('[data-testid=new-thread]').textContent.includes('Новый разговор') && document.documentElement.lang === 'ru'`, 5*time.Second)
	p.click("#m-" + question + " " + tid("why-button"))
	p.visible(tid("inspector") + " " + tid("stacked-bar"))
	p.waitJS("the user's grade", `!!document.querySelector('[data-testid=inspector] [data-testid=grade]')`, uiWait)
	p.shot("inspector-desktop-ru")
	p.click(tid("lang-en"))
	p.waitJS("English", `document.querySelector('[data-testid=new-thread]').textContent.includes('New conversation')`, 5*time.Second)
	return thread
}

const xssPayload = "<img src=x onerror=alert(1)> <script>window.__pwned = 1</script> [click](javascript:alert(1)) [ok](https://example.com/safe)"

func xss(t *testing.T, s *server, p *tab) {
	p.navigate("/")
	p.visible(tid("empty-state"))
	reply := p.send("Tell me about oak: "+xssPayload, true)
	user := eval[string](p, `[...document.querySelectorAll('[data-testid=message][data-role=user]')].pop().dataset.messageId`)
	if got := p.text("#m-" + user + " " + tid("message-body")); !strings.Contains(got, "<img src=x onerror=alert(1)>") || !strings.Contains(got, "[click](javascript:alert(1))") {
		p.fail("the message does not show the markup as text: %q", got)
	}
	if p.count(`#m-`+user+` a[href="https://example.com/safe"][rel="noopener noreferrer"][target="_blank"]`) != 1 {
		p.fail("the https link was not rendered as a safe link")
	}
	_ = reply

	// An anchor's topic edited through the UI, and a fact added through it.
	p.waitJS("an anchor", `document.querySelectorAll('[data-testid=anchor-item]').length > 0`, uiWait)
	p.click(tid("anchor-item") + " " + tid("anchor-edit"))
	p.do("edit the anchor", chromedp.SetValue(chromedp.CSS(tid("anchor-topic-input")), xssPayload),
		chromedp.SetValue(chromedp.CSS(tid("anchor-data-input")), xssPayload))
	p.click(tid("anchor-save"))
	p.waitJS("the edited anchor", `[...document.querySelectorAll('[data-testid=anchor-topic]')].some(e => e.textContent.includes('<img src=x'))`, uiWait)
	p.click(tid("fact-add"))
	p.do("write a fact", chromedp.SetValue(chromedp.CSS(tid("fact-add-text")), "Remember "+xssPayload))
	p.click(tid("fact-add-save"))
	p.waitJS("the new fact", `[...document.querySelectorAll('[data-testid=fact-text]')].some(e => e.textContent.includes('<img src=x'))`, uiWait)
	p.send("And one more about oak: "+xssPayload, false)

	checks := map[string]string{
		"an img element in a message, anchor or fact": `document.querySelectorAll('[data-testid=message] img, [data-testid=anchor-item] img, [data-testid=anchor-chain] img, [data-testid=fact-item] img').length === 0`,
		"a script element outside the page's own":     `[...document.querySelectorAll('script')].every(s => s.src.endsWith('/assets/app.js'))`,
		"a javascript: link":                          `[...document.querySelectorAll('a')].every(a => !/^\s*javascript:/i.test(a.getAttribute('href') || ''))`,
		"script that ran":                             `window.__pwned === undefined`,
		"the anchor's topic shown as text":            `[...document.querySelectorAll('[data-testid=anchor-chain] li')].some(e => e.textContent.includes('<img src=x onerror=alert(1)>'))`,
		"the fact shown as text":                      `[...document.querySelectorAll('[data-testid=fact-text]')].some(e => e.textContent.includes('[click](javascript:alert(1))'))`,
	}
	for what, expr := range checks {
		if !eval[bool](p, expr) {
			p.fail("XSS check failed: %s (%s)", what, expr)
		}
	}
	p.shot("xss-desktop")

	// Refreshing short-term memory asks first, then says what it deleted.
	p.click(tid("refresh-memory"))
	p.click(tid("confirm-ok"))
	p.visible(tid("refresh-result"))
	if got := p.text(tid("refresh-result")); !strings.Contains(got, "Deleted") || !strings.Contains(got, "chat fact") {
		p.fail("refresh says %q", got)
	}
}

func markdownAndSummary(t *testing.T, s *server, p *tab) {
	// A thread long enough to be summarized, written through the API.
	var th struct{ ID string }
	if code := s.call(t, "POST", "/api/v1/threads", `{"title":"Long one"}`, &th); code != http.StatusCreated {
		t.Fatalf("create thread: %d", code)
	}
	for i := 1; i <= 4; i++ {
		body := fmt.Sprintf(`{"content":"Part %d of the specification: %s"}`, i, strings.Repeat("the cabinet frame uses oak boards of 18 mm, ", 60))
		if code := s.call(t, "POST", "/api/v1/threads/"+th.ID+"/messages", body, nil); code != http.StatusOK {
			t.Fatalf("send: %d", code)
		}
	}
	deadline := time.Now().Add(uiWait)
	for {
		var l struct{ Messages []struct{ Kind string } }
		s.call(t, "GET", "/api/v1/threads/"+th.ID+"/messages", "", &l)
		if slices.ContainsFunc(l.Messages, func(m struct{ Kind string }) bool { return m.Kind == "summary" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no summary was written")
		}
		time.Sleep(200 * time.Millisecond)
	}

	p.navigate("/t/" + th.ID)
	p.visible(tid("summary"))
	if eval[bool](p, `document.querySelector('[data-testid=summary]').open`) {
		p.fail("the summary card is not collapsed")
	}
	p.click(tid("summary") + " summary")
	p.visible(tid("summary") + " " + tid("message-body"))

	// Markdown renders safely as structure.
	md := "**Plan** for *today*:\n- cut `boards`\n- sand them\n\n1. first\n2. second\n\n> measured twice\n\n```go\nfmt.Println(\"oak\")\n```\nSee [the docs](https://example.com/docs)."
	p.send(strings.ReplaceAll(md, `\n`, "\n"), false)
	user := eval[string](p, `[...document.querySelectorAll('[data-testid=message][data-role=user]')].pop().id`)
	for sel, want := range map[string]int{"strong": 1, "em": 1, "ul > li": 2, "ol > li": 2, "blockquote": 1, "pre > code.lang-go": 1, "li > code": 1, `a[href="https://example.com/docs"]`: 1} {
		if n := p.count("#" + user + " " + sel); n != want {
			p.fail("markdown: %d × %s, want %d\n%s", n, sel, want, eval[string](p, `document.getElementById('`+user+`').innerHTML`))
		}
	}
	copyBtn := "#" + user + " " + tid("copy-code")
	p.click(copyBtn)
	p.waitJS("the code copied", `document.querySelector('`+copyBtn+`').textContent.includes('Copied')`, 5*time.Second)
	p.shot("markdown-desktop")

	// A slow click in the memory panel while its polls (after that reply)
	// redraw it still reaches its button: the redraw waits for the release.
	p.click(tid("tab-memory"))
	edit := tid("anchor-item") + " " + tid("anchor-edit")
	p.holdClick(edit, 2*time.Second)
	p.waitJS("the anchor's editor", `!!document.querySelector('[data-testid=anchor-topic-input]')`, 5*time.Second)
	p.click(tid("anchor-cancel"))

	// A poll that finds nothing new leaves the panel as it is (an item
	// shown in full, the focus); a forced draw redraws it.
	eval[bool](p, `import('/assets/memory.js').then((m) => { window.__memory = m; }); true`)
	p.waitJS("the memory module", `!!window.__memory`, 5*time.Second)
	kept := eval[[]bool](p, `(() => {
  const m = window.__memory, root = document.getElementById('memory');
  m.renderMemory(true);
  const first = root.firstElementChild;
  m.renderMemory();
  const kept = root.firstElementChild === first;
  m.renderMemory(true);
  return [kept, root.firstElementChild !== first];
})()`)
	if !kept[0] || !kept[1] {
		p.fail("the memory panel: kept when nothing changed %v, redrawn when forced %v", kept[0], kept[1])
	}
}

// fetchStub replaces the page's fetch of a message send, by window.__stub:
// "down" (no server), "503", "sse-error" (the stream ends in an error
// event) or "slow" (3 s before the real request, abortable).
const fetchStub = `window.__realFetch = window.__realFetch || window.fetch;
window.__stub = null;
window.fetch = (url, init) => {
  const s = window.__stub;
  if (!s || !String(url).endsWith('/messages') || !init || init.method !== 'POST') return window.__realFetch(url, init);
  if (s === 'down') return Promise.reject(new TypeError('Failed to fetch'));
  if (s === '503') return Promise.resolve(new Response(JSON.stringify({error: 'the database does not answer'}), {status: 503, headers: {'Content-Type': 'application/json'}}));
  if (s === 'sse-error') return Promise.resolve(new Response('event: delta\ndata: {"text":"Partial "}\n\nevent: error\ndata: {"error":"model server http://127.0.0.1:9/v1 (model m) failed: connection refused"}\n\n', {status: 200, headers: {'Content-Type': 'text/event-stream'}}));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => resolve(window.__realFetch(url, init)), 3000);
    init.signal.addEventListener('abort', () => { clearTimeout(t); reject(new DOMException('The user aborted a request.', 'AbortError')); });
  });
};
true`

func errorsStopRetry(t *testing.T, p *tab) {
	p.navigate("/t/00000000-0000-0000-0000-000000000000")
	p.visible(tid("thread-error"))
	if got := p.text(tid("thread-error")); !strings.Contains(got, "Conversation not found") {
		p.fail("an unknown thread says %q", got)
	}
	p.navigate("/")
	p.visible(tid("empty-state"))
	p.send("Hello, a first message.", true)
	eval[bool](p, fetchStub)
	before := eval[int](p, assistantCount)
	question := "Are you there?"
	steps := []struct{ stub, want string }{
		{"down", "Yakor is unreachable"},
		{"503", "The database is unavailable"},
		{"sse-error", "model server http://127.0.0.1:9/v1"},
	}
	for i, st := range steps {
		eval[bool](p, `window.__stub = '`+st.stub+`', true`)
		if i == 0 {
			p.do("fill the composer", chromedp.SetValue(chromedp.CSS(tid("composer-input")), question))
			p.click(tid("send"))
		} else {
			p.click(tid("retry"))
		}
		p.waitJS("the error "+st.want, `(document.querySelector('[data-testid=turn-error]') || {textContent: ''}).textContent.includes(`+fmt.Sprintf("%q", st.want)+`)`, uiWait)
		if p.count(tid("turn-error")+" "+tid("retry")) != 1 {
			p.fail("no Retry after %q", st.want)
		}
	}
	p.shot("error-desktop")

	// Stop aborts the reply being written; Retry then sends the same message
	// (the same client id), and it is stored once.
	eval[bool](p, `window.__stub = 'slow', true`)
	p.click(tid("retry"))
	p.visible(tid("stop"))
	p.click(tid("stop"))
	p.waitJS("stopped", `(document.querySelector('[data-testid=turn-error]') || {textContent: ''}).textContent.includes('Stopped')`, uiWait)
	p.visible(tid("send"))
	eval[bool](p, `window.__stub = null, true`)
	p.click(tid("retry"))
	p.waitJS("the reply after retrying", fmt.Sprintf(`%s === %d && !document.querySelector('[data-testid=turn-error]')`, assistantCount, before+1), uiWait)
	p.do("reload", chromedp.Reload())
	p.waitJS("the conversation", fmt.Sprintf(`%s === %d`, assistantCount, before+1), uiWait)
	if n := eval[int](p, `[...document.querySelectorAll('[data-testid=message][data-role=user]')].filter(e => e.textContent.includes('Are you there?')).length`); n != 1 {
		p.fail("the retried message is stored %d times", n)
	}
}

func research(t *testing.T, dbURL string, p *tab) {
	p.navigate("/")
	p.click(tid("nav-research"))
	p.waitJS("the research page", `location.pathname === '/research'`, 5*time.Second)
	p.visible(tid("research-source"))
	if got := p.text(tid("research-source")); !strings.Contains(got, "no research source configured") {
		p.fail("research status says %q", got)
	}
	p.visible(tid("articles-empty"))
	topic := "Quantum walnut veneer tariffs"
	p.do("type a topic", chromedp.SendKeys(chromedp.CSS(tid("topic-input")), topic))
	p.click(tid("topic-add"))
	p.waitJS("the topic listed", fmt.Sprintf(`[...document.querySelectorAll('[data-testid=topic-name]')].some(e => e.textContent === %q)`, topic), uiWait)
	if got := p.text(tid("topic-result")); !strings.Contains(got, "Topic added") {
		p.fail("adding a topic says %q", got)
	}
	p.click(tid("run-now"))
	p.visible(tid("run-result"))
	if got := p.text(tid("run-result")); !strings.Contains(got, "Queued") && !strings.Contains(got, "Already running") {
		p.fail("run now says %q", got)
	}
	p.shot("research-desktop")

	// Study notes (written here straight into the database, as the research
	// job would): links only for http(s), opened safely; the rest is text.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const insert = `INSERT INTO research_articles (tenant_id, topic_id, theme, url, title, note, fetched_at)
SELECT tenant_id, id, topic, $2, $3, $4, now() FROM research_topics WHERE topic = $1`
	for _, a := range [][3]string{
		{"javascript:alert(1)", "<img src=x onerror=alert(1)> Bad page", "A note with <script>window.__pwned = 1</script> in it."},
		{"https://example.com/oak-prices", "Oak prices in 2031", "Oak boards cost 3400 per board in 2031, says the page."},
	} {
		if _, err := conn.Exec(ctx, insert, topic, a[0], a[1], a[2]); err != nil {
			t.Fatalf("insert an article: %v", err)
		}
	}
	// Reloading /research serves the app, which opens the page again.
	p.do("reload", chromedp.Reload())
	p.visible(tid("research-status"))
	p.waitJS("the study notes", `document.querySelectorAll('[data-testid=article-item]').length === 2`, uiWait)
	for what, expr := range map[string]string{
		"the https link, opened safely": `!!document.querySelector('[data-testid=article-item] a[href="https://example.com/oak-prices"][target=_blank][rel="noopener noreferrer"]')`,
		"no javascript: link":           `[...document.querySelectorAll('a')].every(a => !/^\s*javascript:/i.test(a.getAttribute('href') || ''))`,
		"the title as text":             `[...document.querySelectorAll('[data-testid=article-item]')].some(e => e.textContent.includes('<img src=x onerror=alert(1)> Bad page'))`,
		"no injected element":           `document.querySelectorAll('[data-testid=article-item] img, [data-testid=article-item] script').length === 0 && window.__pwned === undefined`,
	} {
		if !eval[bool](p, expr) {
			p.fail("research notes: %s (%s)", what, expr)
		}
	}
	p.do("scroll to the notes", chromedp.ScrollIntoView(chromedp.CSS(tid("research-articles"))))
	p.shot("research-notes-desktop")
	if code := httpStatus(t, p.base+"/research"); code != http.StatusOK {
		t.Fatalf("GET /research: %d", code)
	}
}

func phone(t *testing.T, p *tab, thread string) {
	p.navigate("/")
	p.visible(tid("empty-state"))
	p.shot("empty-phone")
	p.navigate("/t/" + thread)
	p.waitJS("the conversation", `document.querySelectorAll('[data-testid=message]').length > 4`, uiWait)
	fits := `document.documentElement.scrollWidth <= window.innerWidth && (r => r.bottom <= window.innerHeight && r.top > 0)(document.querySelector('[data-testid=composer]').getBoundingClientRect())`
	if !eval[bool](p, fits) {
		p.fail("the chat does not fit a 390×844 screen")
	}
	p.shot("chat-phone")
	p.send("Is the chat usable on a phone?", false)

	p.click(tid("sidebar-toggle"))
	p.waitJS("the sidebar drawer", `(r => r.left >= 0 && r.right > 200)(document.querySelector('[data-testid=sidebar]').getBoundingClientRect())`, 5*time.Second)
	p.shot("sidebar-phone")
	p.do("close the drawer", chromedp.KeyEvent("\x1b"))
	p.waitJS("the sidebar closed", `document.querySelector('[data-testid=sidebar]').getBoundingClientRect().right <= 0`, 5*time.Second)

	p.click(tid("panel-toggle"))
	p.waitJS("the memory drawer", `(r => r.left < window.innerWidth && r.right <= window.innerWidth + 1 && r.left >= 0)(document.querySelector('[data-testid=panel]').getBoundingClientRect())`, 5*time.Second)
	p.visible(tid("anchor-chain"))
	p.shot("memory-phone")
	p.click(tid("panel-close"))
	p.waitJS("the memory drawer closed", `document.querySelector('[data-testid=panel]').getBoundingClientRect().left >= window.innerWidth`, 5*time.Second)

	last := lastReply(p)
	p.click("#m-" + last + " " + tid("why-button"))
	p.visible(tid("inspector") + " " + tid("stacked-bar"))
	p.shot("inspector-phone")
	p.click(tid("panel-close"))

	p.navigate("/research")
	p.visible(tid("research-status"))
	p.shot("research-phone")
}

func httpStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// manyThreads: the sidebar lists every thread, past the API's first page
// of 50 (it follows the lists' cursors).
func manyThreads(t *testing.T, s *server, p *tab) {
	for i := range 120 {
		if code := s.call(t, "POST", "/api/v1/threads", fmt.Sprintf(`{"title":"Bulk thread %03d"}`, i), nil); code != 201 {
			t.Fatalf("make thread %d: %d", i, code)
		}
	}
	p.navigate("/")
	p.waitJS("the oldest bulk thread in the sidebar", `[...document.querySelectorAll('[data-testid=thread-title]')].some(e => e.textContent === 'Bulk thread 000')`, uiWait)
	if n := p.count(tid("thread-title")); n < 120 {
		p.fail("the sidebar shows %d threads", n)
	}
}
