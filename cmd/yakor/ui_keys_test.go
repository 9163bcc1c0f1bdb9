package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"yakor/postgres/pgtest"
)

// TestBrowserKeys drives the web chat on a server that has API keys. The
// operator makes the first one through the API while the server still
// serves its local user, and that switches the server to keys at once.
// The page then asks for a key: a wrong one shows the server's refusal, the
// right one lets the user chat, and a reload keeps it; a revoked key asks
// again in the middle of a send, which goes through once a good key is
// given; "Forget API key" asks afresh.
func TestBrowserKeys(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	s := startServer(t, pgtest.DataDir(t), "--database-url", url, "--research-schedule", "off", "--log-level", "warn")
	base := "http://" + s.addr

	// Before any key: the local user has a conversation.
	var th struct{ ID string }
	if code := s.callKey(t, "", "POST", "/api/v1/threads", `{"title":"Written before the keys"}`, &th); code != http.StatusCreated {
		t.Fatalf("create thread: %d", code)
	}
	// The operator's admin key, made as the local user; then a key for the
	// browser, made with it. Both act as the local user.
	var ops, browserKey struct{ ID, Secret, User string }
	if code := s.callKey(t, "", "POST", "/api/v1/keys", `{"name":"ops","admin":true,"rate_per_minute":6000}`, &ops); code != http.StatusCreated || ops.User != "local" {
		t.Fatalf("the first key: %d %+v", code, ops)
	}
	if code := s.callKey(t, "", "GET", "/api/v1/threads", "", nil); code != http.StatusUnauthorized {
		t.Fatalf("no key once a key exists: %d", code)
	}
	if code := s.callKey(t, ops.Secret, "POST", "/api/v1/keys", `{"name":"browser","rate_per_minute":6000}`, &browserKey); code != http.StatusCreated {
		t.Fatalf("the browser's key: %d", code)
	}

	p := openTab(t, startChromium(t), base, 1280, 800, false)
	p.navigate("/")
	p.visible(tid("key-dialog"))
	if got := p.text(tid("key-dialog")); !strings.Contains(got, "This server needs an API key") {
		p.fail("the key dialog says %q", got)
	}
	p.waitJS("the key input in focus", `document.activeElement && document.activeElement.id === 'key-input' && document.activeElement.type === 'password'`, uiWait)
	p.shot("key-dialog-desktop")

	// A wrong key: the server's refusal, in the dialog, which stays open.
	p.do("type a wrong key", chromedp.SendKeys(chromedp.CSS(tid("key-input")), "yk_not_a_real_key\n"))
	p.waitJS("the refusal", `!document.querySelector('[data-testid=key-error]').hidden && document.querySelector('[data-testid=key-error]').textContent.includes('the API key is not valid')`, uiWait)
	if !eval[bool](p, `document.getElementById('key-dialog').open && localStorage.getItem('yakor.apiKey') === null && document.getElementById('key-input').getAttribute('aria-invalid') === 'true'`) {
		p.fail("after a wrong key the dialog closed or the key was kept")
	}
	p.shot("key-dialog-error-desktop")

	// The right key: the page loads as the local user, whose conversation
	// is there, and a message gets its reply.
	p.do("type the key", chromedp.SetValue(chromedp.CSS(tid("key-input")), browserKey.Secret))
	p.click(tid("key-submit"))
	p.waitJS("the dialog closed", `!document.getElementById('key-dialog').open`, uiWait)
	if got := eval[string](p, `localStorage.getItem('yakor.apiKey')`); got != browserKey.Secret {
		p.fail("stored key %q", got)
	}
	p.waitJS("the earlier conversation", `[...document.querySelectorAll('[data-testid=thread-title]')].some(e => e.textContent === 'Written before the keys')`, uiWait)
	p.visible(tid("forget-key"))
	p.click(tid("new-thread"))
	reply := p.send("With a key now: the oak board costs 3400.", true)
	if got := p.text("#m-" + reply); !strings.Contains(got, "offline") {
		p.fail("reply says %q", got)
	}
	p.shot("chat-with-key-desktop")

	// A reload keeps the key: no dialog, and chatting goes on.
	p.do("reload", chromedp.Reload())
	p.waitJS("the conversation again", `document.querySelectorAll('[data-testid=message][data-role=assistant]').length === 1`, uiWait)
	if eval[bool](p, `document.getElementById('key-dialog').open`) {
		p.fail("the key dialog opened after a reload")
	}
	p.send("And after a reload?", false)

	// The key is revoked: the next send asks again, saying why; with a good
	// key the same send goes through, stored once.
	if code := s.callKey(t, ops.Secret, "DELETE", "/api/v1/keys/"+browserKey.ID, "", nil); code != http.StatusOK {
		t.Fatalf("revoke the browser's key: %d", code)
	}
	before := eval[int](p, assistantCount)
	// Sent from script: a memory poll may have met the revoked key first
	// and opened the dialog, which makes the page behind it inert.
	eval[bool](p, `document.getElementById('composer-input').value = 'Sent while the key is revoked.', document.getElementById('composer').requestSubmit(), true`)
	p.visible(tid("key-dialog"))
	p.waitJS("the revocation", `document.querySelector('[data-testid=key-error]').textContent.includes('revoked')`, uiWait)
	p.do("type the other key", chromedp.SetValue(chromedp.CSS(tid("key-input")), ops.Secret))
	p.click(tid("key-submit"))
	p.waitJS("the reply after the new key", fmt.Sprintf(`%s === %d && !document.querySelector('[data-testid=streaming-reply]')`, assistantCount, before+1), uiWait)
	if n := p.count(tid("turn-error")); n != 0 {
		p.fail("the send failed: %s", p.text(tid("turn-error")))
	}
	if n := eval[int](p, `[...document.querySelectorAll('[data-testid=message][data-role=user]')].filter(e => e.textContent.includes('Sent while the key is revoked.')).length`); n != 1 {
		p.fail("the message is shown %d times", n)
	}

	// The interface speaks Russian in the dialog too; then Forget: the page
	// starts afresh and asks for a key.
	p.click(tid("lang-ru"))
	p.waitJS("Russian", `document.querySelector('[data-testid=forget-key]').textContent.includes('Забыть API-ключ')`, 5*time.Second)
	p.click(tid("forget-key"))
	p.visible(tid("key-dialog"))
	if got := p.text(tid("key-dialog")); !strings.Contains(got, "Этому серверу нужен API-ключ") {
		p.fail("the Russian dialog says %q", got)
	}
	if got := eval[string](p, `String(localStorage.getItem('yakor.apiKey'))`); got != "null" {
		p.fail("the key was not forgotten: %q", got)
	}
	p.shot("key-dialog-ru")
}
