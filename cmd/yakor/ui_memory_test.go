package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"yakor/postgres/pgtest"
)

// networkOrder runs in every document before the app: it holds back the
// app's reads by window.__order (kept across reloads in sessionStorage):
// "messages" holds the thread's messages back 500 ms, "memory" its anchors
// and facts, "shuffle" every read by up to 400 ms; window.__pending counts
// the reads not yet answered. It records every moment the memory panel
// says "(another conversation)", with the page's path then.
const networkOrder = `(() => {
  window.__order = sessionStorage.getItem('order') || 'none';
  window.__pending = 0;
  window.__labels = [];
  const real = window.fetch.bind(window);
  const hold = (url) => {
    const u = String(url);
    if (window.__order === 'messages') return /\/messages(\?|$)/.test(u) ? 500 : 0;
    if (window.__order === 'memory') return /\/anchors(\?|$)|\/facts\?/.test(u) ? 500 : 0;
    if (window.__order === 'shuffle') return Math.floor(Math.random() * 400);
    return 0;
  };
  window.fetch = (url, init) => {
    const ms = (!init || !init.method || init.method === 'GET') ? hold(url) : 0;
    window.__pending++;
    return real(url, init).then((r) => new Promise((ok) => setTimeout(() => ok(r), ms)))
      .finally(() => { window.__pending--; });
  };
  const look = () => {
    const m = document.getElementById('memory');
    if (!m) return;
    for (const el of m.querySelectorAll('span, button')) {
      if (el.children.length === 0 && el.textContent.includes('(another conversation)')) {
        window.__labels.push({ path: location.pathname, text: el.textContent });
      }
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
})();`

// TestBrowserMemorySources loads two conversations many times, by reloads
// and by switching between them, with the app's reads answered in every
// order, and checks that the memory panel never labels a message of the
// open conversation "(another conversation)", while it still so labels
// the source of a user fact noted in the other one.
func TestBrowserMemorySources(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	s := startServer(t, pgtest.DataDir(t), "--database-url", url, "--research-schedule", "off", "--log-level", "warn")
	a := sourcesThread(t, s, "Oak prices", "My name is Anna.", "Price list: oak board 3400, birch panel 1250, pine shelf 780.")
	b := sourcesThread(t, s, "Sofa", "The sofa is 31500 and the armchair is 12900.", "We deliver the sofa on Friday.")
	own := map[string][]int64{a.id: a.messages, b.id: b.messages}
	annaSource := waitFactFrom(t, s, b.id, a.messages)

	p := openTab(t, startChromium(t), "http://"+s.addr, 1280, 800, false)
	p.do("hold the app's reads back", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: networkOrder})
		return err
	}))
	orders := []string{"messages", "memory", "shuffle", "none"}
	open := a.id
	p.navigate("/t/" + open)
	for k := range 24 {
		order := orders[k%len(orders)]
		switch k % 3 {
		case 0: // a reload
			eval[bool](p, `sessionStorage.setItem('order', '`+order+`'), true`)
			p.do("reload", chromedp.Reload())
		case 1: // a switch in the sidebar
			eval[bool](p, `window.__order = '`+order+`', true`)
			open = other(open, a.id, b.id)
			p.click(`[data-thread-id="` + open + `"] ` + tid("thread-link"))
		default: // a switch and back before the first one's reads are answered
			eval[bool](p, `window.__order = '`+order+`', true`)
			p.click(`[data-thread-id="` + other(open, a.id, b.id) + `"] ` + tid("thread-link"))
			p.click(`[data-thread-id="` + open + `"] ` + tid("thread-link"))
		}
		p.waitJS("the panel, every read answered", `location.pathname === '/t/`+open+`' && window.__pending === 0 && `+
			`!!document.querySelector('#memory [data-testid=facts]')`, uiWait)
		time.Sleep(150 * time.Millisecond)
		labels := eval[[]struct{ Path, Text string }](p, `window.__labels.splice(0)`)
		for _, l := range labels {
			id := labelledID(t, l.Text)
			thread := l.Path[len("/t/"):]
			if slices.Contains(own[thread], id) {
				p.fail("load %d (%s reads held back): the panel of %s labelled its own message #%d %q", k, order, thread, id, l.Text)
			}
		}
		if p.count("#memory "+tid("anchor-item")+" "+tid("source-link")) == 0 {
			p.fail("load %d (%s reads held back): the anchors' sources are not links to their messages", k, order)
		}
	}

	// The source of a fact noted in the other conversation keeps its label.
	eval[bool](p, `window.__order = 'none', true`)
	p.click(`[data-thread-id="` + b.id + `"] ` + tid("thread-link"))
	want := fmt.Sprintf("from message #%d (another conversation)", annaSource)
	p.waitJS("Anna's fact from the other conversation", fmt.Sprintf(`[...document.querySelectorAll('#memory [data-testid=fact-item]')].some(e => e.textContent.includes(%q))`, want), uiWait)
}

// sourcesThread is a conversation of the given messages, written through
// the API, with an anchor by the time it returns.
type sourcesConversation struct {
	id       string
	messages []int64
}

func sourcesThread(t *testing.T, s *server, title string, sent ...string) sourcesConversation {
	t.Helper()
	var th struct{ ID string }
	if code := s.call(t, "POST", "/api/v1/threads", fmt.Sprintf(`{"title":%q}`, title), &th); code != http.StatusCreated {
		t.Fatalf("create thread: %d", code)
	}
	for _, m := range sent {
		if code := s.call(t, "POST", "/api/v1/threads/"+th.ID+"/messages", fmt.Sprintf(`{"content":%q}`, m), nil); code != http.StatusOK {
			t.Fatalf("send: %d", code)
		}
	}
	c := sourcesConversation{id: th.ID}
	for _, m := range s.messages(t, th.ID).Messages {
		c.messages = append(c.messages, m.ID)
	}
	deadline := time.Now().Add(uiWait)
	for {
		var l struct {
			Anchors []struct {
				MessageID int64 `json:"message_id"`
			}
		}
		s.call(t, "GET", "/api/v1/threads/"+th.ID+"/anchors", "", &l)
		if len(l.Anchors) > 0 {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("no anchor in %q", title)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitFactFrom waits until the facts conversation thread sees include one
// noted from one of the messages from, and returns that message's id.
func waitFactFrom(t *testing.T, s *server, thread string, from []int64) int64 {
	t.Helper()
	deadline := time.Now().Add(uiWait)
	for {
		var l struct {
			Facts []struct {
				Sources []int64 `json:"source_message_ids"`
			}
		}
		s.call(t, "GET", "/api/v1/facts?thread="+thread, "", &l)
		for _, f := range l.Facts {
			for _, id := range f.Sources {
				if slices.Contains(from, id) {
					return id
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no fact of conversation %s is noted from %v", thread, from)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

var labelID = regexp.MustCompile(`#(\d+)`)

func labelledID(t *testing.T, text string) int64 {
	t.Helper()
	m := labelID.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("a label without a message id: %q", text)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

func other(id, a, b string) string {
	if id == a {
		return b
	}
	return a
}
