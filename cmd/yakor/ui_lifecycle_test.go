package main

import (
	"net/http"
	"testing"

	"yakor/postgres/pgtest"
)

// TestBrowserDeleteExport: in the web chat a conversation is exported as
// JSON (the thread and its messages) and deleted with two clicks on its
// delete button; it leaves the list, and the server no longer has it.
func TestBrowserDeleteExport(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	s := startServer(t, pgtest.DataDir(t), "--database-url", url, "--research-schedule", "off", "--log-level", "warn")
	var th struct{ ID string }
	if code := s.callKey(t, "", "POST", "/api/v1/threads", `{"title":"Oak prices"}`, &th); code != http.StatusCreated {
		t.Fatalf("thread: %d", code)
	}
	if code := s.callKey(t, "", "POST", "/api/v1/threads/"+th.ID+"/messages", `{"content":"Price list: oak board 9000 EUR."}`, nil); code != http.StatusOK {
		t.Fatalf("send: %d", code)
	}
	p := openTab(t, startChromium(t), "http://"+s.addr, 1280, 800, false)
	p.navigate("/")
	item := `[data-thread-id="` + th.ID + `"]`
	p.visible(item)
	// Keep the exported file's contents where the test can read them.
	eval[bool](p, `(() => { window.exported = []; const orig = URL.createObjectURL;
  URL.createObjectURL = (b) => { b.text().then((x) => window.exported.push(x)); return orig(b); }; return true; })()`)
	p.click(item + ` [data-testid=thread-export]`)
	p.waitJS("the export", `window.exported.length === 1`, uiWait)
	if !eval[bool](p, `(() => { const x = JSON.parse(window.exported[0]); return x.thread.id === '`+th.ID+`' && x.messages.length === 2 && x.messages[0].content.includes('9000'); })()`) {
		p.fail("the export is %s", eval[string](p, `window.exported[0]`))
	}
	p.click(item + ` [data-testid=thread-delete]`)
	if !eval[bool](p, `document.querySelector('`+item+`') !== null`) {
		p.fail("one click deleted the conversation")
	}
	p.click(item + ` [data-testid=thread-delete]`)
	p.waitJS("the conversation to leave the list", `document.querySelector('`+item+`') === null`, uiWait)
	if code := s.callKey(t, "", "GET", "/api/v1/threads/"+th.ID, "", nil); code != http.StatusNotFound {
		t.Errorf("the deleted thread: %d, want 404", code)
	}
}
