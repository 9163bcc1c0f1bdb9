package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// uiWait bounds one wait or action in the browser tests.
const uiWait = 20 * time.Second

// chromiumPath finds the system's Chromium; the browser tests fail, never
// skip, without one.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("Chromium is not installed, and the web chat's browser tests need it: run `bash scripts/setup.sh test`")
	return ""
}

// screenshotDir is $YAKOR_ARTIFACTS, else <repo>/.yakor-test/screenshots.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("YAKOR_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", ".yakor-test", "screenshots")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		t.Fatal(err)
	}
	return abs
}

// startChromium starts one headless Chromium for a test; tabs are opened
// from the context it returns.
func startChromium(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("lang", "en-US"),
		chromedp.Flag("hide-scrollbars", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// tab is one browser tab on the app, failing the test if the page logs an
// error, throws, or opens a JavaScript dialog.
type tab struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots string

	mu       sync.Mutex
	problems []string
}

// openTab opens a tab of width×height on the browser; its problems are
// checked when the test ends.
func openTab(t *testing.T, browser context.Context, base string, width, height int64, mobile bool) *tab {
	t.Helper()
	p := &tab{t: t, base: base, shots: screenshotDir(t)}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(p.listen))
	p.ctx = ctx
	t.Cleanup(cancel)
	var emu []chromedp.EmulateViewportOption
	if mobile {
		emu = append(emu, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	// The first action binds the tab to its context: run it without a
	// timeout, or the tab closes when the timeout's context ends.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height, emu...)); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	t.Cleanup(p.checkProblems)
	return p
}

// listen runs in the tab's event loop: it only records.
func (p *tab) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				if a.Description != "" {
					parts = append(parts, a.Description)
				} else {
					parts = append(parts, string(a.Value))
				}
			}
			p.problem("console.%s: %s", ev.Type, strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		p.problem("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, msg)
	case *log.EventEntryAdded:
		// The browser's own errors, such as a blocked inline style (CSP);
		// failed requests (a 4xx the test asked for) are the app's to show.
		if e := ev.Entry; e != nil && e.Level == log.EntryLevelError && e.Source != log.EntrySourceNetwork {
			p.problem("browser %s error: %s (%s)", e.Source, e.Text, e.URL)
		}
	case *page.EventJavascriptDialogOpening:
		p.problem("a JavaScript %s dialog opened: %q", ev.Type, ev.Message)
		go func() {
			_, _ = chromedp.Call(p.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}()
	}
}

func (p *tab) problem(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

func (p *tab) checkProblems() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.problems) > 0 {
		p.t.Errorf("the page reported %d problem(s):\n  %s", len(p.problems), strings.Join(p.problems, "\n  "))
	}
}

// fail saves a screenshot of the page and fails the test.
func (p *tab) fail(format string, args ...any) {
	p.t.Helper()
	p.shot("FAILED-" + strings.ReplaceAll(p.t.Name(), "/", "-"))
	p.t.Fatalf(format, args...)
}

// do runs actions within uiWait.
func (p *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, uiWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.fail("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](p *tab, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, uiWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.fail("evaluate %s: %v", expr, err)
	}
	return v
}

// waitJS waits until the JavaScript expression is truthy.
func (p *tab) waitJS(what, expr string, timeout time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr,
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		p.fail("waiting for %s (%s): %v\npage text:\n%s", what, expr, err, p.text("body"))
	}
}

// text is the visible text of the first element matching sel ("" if none).
func (p *tab) text(sel string) string {
	return eval[string](p, fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText`, sel))
}

// count is how many elements match sel.
func (p *tab) count(sel string) int {
	return eval[int](p, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

// tid is the CSS selector of a data-testid.
func tid(id string) string {
	return `[data-testid="` + id + `"]`
}

func (p *tab) visible(sel string) {
	p.t.Helper()
	p.do("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

// click clicks sel with the mouse. A node the page redrew between being
// found and being clicked (a panel refreshed by a job's result) is found
// again, as a user would click the new one.
func (p *tab) click(sel string) {
	p.t.Helper()
	deadline := time.Now().Add(uiWait)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, uiWait)
		err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel)))
		cancel()
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "Could not find node with given id") || time.Now().After(deadline) {
			p.fail("click %s: %v", sel, err)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// clickFor clicks sel until the condition want (a JS expression) holds
// within a second of a click: a click that met other content, because a
// panel redrawn by a job's result grew above sel (a new anchor) between
// finding sel's place and pressing there, is made again, as a user would
// click again. (A redraw between press and release waits: see
// holdClick's test.)
func (p *tab) clickFor(sel, what, want string) {
	p.t.Helper()
	deadline := time.Now().Add(uiWait)
	for {
		p.click(sel)
		ctx, cancel := context.WithTimeout(p.ctx, 3*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](want,
			chromedp.WithPollingTimeout(time.Second), chromedp.WithPollingInterval(50*time.Millisecond)))
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			p.fail("clicking %s did not bring %s (%s): %v\npage text:\n%s", sel, what, want, err, p.text("body"))
			return
		}
	}
}

// holdClick presses the mouse on the middle of sel, holds it for hold and
// releases it there, as a slow click.
func (p *tab) holdClick(sel string, hold time.Duration) {
	p.t.Helper()
	p.visible(sel)
	at := eval[[]float64](p, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2]; })()`, sel))
	mouse := func(typ input.DispatchMouseEventType) chromedp.Action[chromedp.Void] {
		return chromedp.MouseEvent(typ, at[0], at[1], chromedp.ButtonType(input.MouseButtonLeft), chromedp.ClickCount(1))
	}
	p.do("press the mouse on "+sel, mouse(chromedp.MousePressed))
	time.Sleep(hold)
	p.do("release the mouse on "+sel, mouse(chromedp.MouseReleased))
}

func (p *tab) navigate(path string) {
	p.t.Helper()
	p.do("open "+path, chromedp.Navigate(p.base+path))
}

// shot saves a PNG of the viewport as <name>.png.
func (p *tab) shot(name string) {
	ctx, cancel := context.WithTimeout(p.ctx, uiWait)
	defer cancel()
	// Let transitions and the last frame settle.
	_ = chromedp.Do(ctx, chromedp.Sleep(250*time.Millisecond))
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(p.shots, name+".png"), buf, 0o644); err != nil {
		p.t.Errorf("save screenshot %s: %v", name, err)
	}
}

// assistantCount is the number of stored replies shown.
const assistantCount = `document.querySelectorAll('[data-testid=message][data-role=assistant]').length`

// send types content into the composer, sends it (Enter, or the Send
// button) and waits for the streamed reply to be stored; it returns the
// reply's message id.
func (p *tab) send(content string, enter bool) string {
	p.t.Helper()
	before := eval[int](p, assistantCount)
	if enter {
		p.do("type a message", chromedp.SendKeys(chromedp.CSS(tid("composer-input")), content+"\n"))
	} else {
		p.do("fill the composer", chromedp.SetValue(chromedp.CSS(tid("composer-input")), content))
		p.click(tid("send"))
	}
	p.waitJS("the reply", fmt.Sprintf(`%s > %d && !document.querySelector('[data-testid=streaming-reply]') || !!document.querySelector('[data-testid=turn-error]')`, assistantCount, before), uiWait)
	if p.count(tid("turn-error")) > 0 {
		p.fail("the turn failed: %s", p.text(tid("turn-error")))
	}
	return lastReply(p)
}

// lastReply is the id of the newest reply on the page.
func lastReply(p *tab) string {
	return eval[string](p, `[...document.querySelectorAll('[data-testid=message][data-role=assistant]')].pop().dataset.messageId`)
}
