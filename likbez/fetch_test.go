package likbez

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

const articleHTML = `<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8">
<title>VAT on exports explained | Tax Site</title>
<style>body { font-family: sans-serif; } .cookie-banner { position: fixed; }</style>
<script>var tracking = "TRACKING_SCRIPT_TEXT"; window.dataLayer = [];</script>
</head><body>
<header class="site-header"><div class="logo">Tax Site HEADER_TEXT</div>
<nav class="menu"><ul><li><a href="/">Home NAV_TEXT</a></li><li><a href="/about">About</a></li><li><a href="/contact">Contact</a></li></ul></nav>
</header>
<div class="cookie-banner" id="gdpr-consent">We use cookies COOKIE_TEXT to improve your experience. <button>Accept all</button></div>
<main>
<article>
<h1>VAT on exports explained</h1>
<p>Exports are zero-rated at 0% when the goods leave the customs territory within three months of the supply, and the seller keeps the evidence of the export.</p>
<p>The evidence must include the export declaration, the transport documents and the commercial invoice; without it the seller owes VAT at the standard rate of 20% on the full price.</p>
<p>Services supplied to a business customer abroad are usually outside the scope of VAT altogether, which is a different rule from zero-rating even though both mean no VAT is charged.</p>
<p>A seller that zero-rates exports can still recover the input VAT it paid on its purchases, which is why zero-rating is more favourable than an exemption for exporters.</p>
</article>
</main>
<aside class="sidebar"><h3>Related SIDEBAR_TEXT</h3><ul><li><a href="/a">Import duties</a></li><li><a href="/b">Excise</a></li><li><a href="/c">Customs</a></li></ul></aside>
<footer class="site-footer">© 2024 Tax Site FOOTER_TEXT. <a href="/privacy">Privacy</a></footer>
<script>console.log("SECOND_SCRIPT_TEXT");</script>
</body></html>`

// countingServer starts an httptest server with h, counting the requests it gets.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func serve(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		} else {
			w.Header()["Content-Type"] = nil // keep net/http from sniffing one
		}
		_, _ = w.Write([]byte(body))
	}
}

func testFetcher(cfg FetchConfig) *Fetcher {
	cfg.AllowPrivate = true // httptest listens on 127.0.0.1
	return NewFetcher(cfg)
}

func TestFetchArticle(t *testing.T) {
	for _, ct := range []string{"text/html; charset=utf-8", ""} {
		srv, _ := countingServer(t, serve(ct, articleHTML))
		page, err := testFetcher(FetchConfig{}).Fetch(context.Background(), srv.URL+"/vat")
		if err != nil {
			t.Fatalf("content type %q: %v", ct, err)
		}
		for _, want := range []string{"Exports are zero-rated at 0%", "standard rate of 20%", "outside the scope of VAT", "recover the input VAT"} {
			if !strings.Contains(page.Text, want) {
				t.Errorf("content type %q: text lacks %q:\n%s", ct, want, page.Text)
			}
		}
		for _, bad := range []string{"TRACKING_SCRIPT_TEXT", "SECOND_SCRIPT_TEXT", "NAV_TEXT", "HEADER_TEXT", "FOOTER_TEXT", "SIDEBAR_TEXT", "COOKIE_TEXT", "font-family"} {
			if strings.Contains(page.Text, bad) {
				t.Errorf("content type %q: text has boilerplate %q:\n%s", ct, bad, page.Text)
			}
		}
		if page.Title != "VAT on exports explained" {
			t.Errorf("title = %q", page.Title)
		}
		if page.URL != srv.URL+"/vat" || page.Bytes != int64(len(articleHTML)) {
			t.Errorf("URL = %q, Bytes = %d", page.URL, page.Bytes)
		}
		if !strings.Contains(page.Excerpt, "zero-rated") {
			t.Errorf("excerpt = %q", page.Excerpt)
		}
		if strings.Contains(page.Text, "\n\n\n") || page.Text != strings.TrimSpace(page.Text) {
			t.Errorf("text not tidied: %q", page.Text)
		}
	}
}

func TestFetchFallbackVisibleText(t *testing.T) {
	// No paragraphs readability scores: a bare list of lines in divs.
	var sb strings.Builder
	sb.WriteString("<html><head><title>Rates table</title><script>SCRIPT_TEXT()</script></head><body><nav>NAV_TEXT</nav>")
	for i := range 12 {
		fmt.Fprintf(&sb, "<div><span>Rate %d: %d%% on line item %d</span></div>", i, i*5, i)
	}
	sb.WriteString("<footer>FOOTER_TEXT</footer></body></html>")
	srv, _ := countingServer(t, serve("text/html", sb.String()))
	page, err := testFetcher(FetchConfig{}).Fetch(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.Text, "Rate 11: 55% on line item 11") || strings.Contains(page.Text, "SCRIPT_TEXT") {
		t.Errorf("text = %q", page.Text)
	}
	if page.Title != "Rates table" {
		t.Errorf("title = %q", page.Title)
	}
}

func TestFetchNoReadableText(t *testing.T) {
	srv, _ := countingServer(t, serve("text/html", "<html><body><nav>menu</nav><p>Too short.</p></body></html>"))
	_, err := testFetcher(FetchConfig{}).Fetch(context.Background(), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "no readable text") {
		t.Fatalf("err = %v", err)
	}
}

func TestFetchTimeout(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}
	slowBody := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><p>start"))
		w.(http.Flusher).Flush()
		slow(w, r)
	}
	for name, h := range map[string]http.HandlerFunc{"headers": slow, "body": slowBody} {
		srv, _ := countingServer(t, h)
		start := time.Now()
		_, err := testFetcher(FetchConfig{Timeout: 300 * time.Millisecond}).Fetch(context.Background(), srv.URL)
		if err == nil || !strings.Contains(err.Error(), "timed out") || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want a timeout", name, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %s", name, d)
		}
	}
}

func TestFetchTooLarge(t *testing.T) {
	big := "<html><body><p>" + strings.Repeat("a", 1<<20) + "</p></body></html>"
	withLength := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", strconv.Itoa(len(big)))
		_, _ = w.Write([]byte(big))
	}
	chunked := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for i := 0; i < len(big); i += 8 << 10 {
			if _, err := w.Write([]byte(big[i:min(i+8<<10, len(big))])); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
	for name, h := range map[string]http.HandlerFunc{"Content-Length": withLength, "chunked": chunked} {
		srv, _ := countingServer(t, h)
		_, err := testFetcher(FetchConfig{MaxBytes: 64 << 10}).Fetch(context.Background(), srv.URL)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "65536") {
			t.Errorf("%s: err = %v, want ErrTooLarge with the limit", name, err)
		}
	}
}

func TestFetchRedirects(t *testing.T) {
	var srv *httptest.Server
	srv, _ = countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/one":
			http.Redirect(w, r, srv.URL+"/two", http.StatusMovedPermanently)
		case "/two":
			http.Redirect(w, r, "/final", http.StatusFound)
		case "/final":
			serve("text/html", articleHTML)(w, r)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}
	})
	f := testFetcher(FetchConfig{MaxRedirects: 3})

	_, err := f.Fetch(context.Background(), srv.URL+"/loop")
	if err == nil || !strings.Contains(err.Error(), "more than 3 redirects") {
		t.Errorf("loop: err = %v", err)
	}
	page, err := f.Fetch(context.Background(), srv.URL+"/one")
	if err != nil {
		t.Fatalf("chain: %v", err)
	}
	if page.URL != srv.URL+"/final" {
		t.Errorf("chain: URL = %q, want the final one", page.URL)
	}
	_, err = f.Fetch(context.Background(), srv.URL+"/to-file")
	if err == nil || !strings.Contains(err.Error(), "only http and https") {
		t.Errorf("redirect to file: err = %v", err)
	}
}

func TestFetchContentTypes(t *testing.T) {
	plain := "Plain notes on VAT.\r\n\r\n\r\n\r\nExports are zero-rated at 0%.\x00 " + strings.Repeat("More plain text. ", 20)
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/doc.pdf":
			serve("application/pdf", "%PDF-1.7 ...")(w, r)
		case "/img":
			serve("image/png", "\x89PNG\r\n\x1a\n")(w, r)
		case "/api":
			serve("application/json", `{"a":1}`)(w, r)
		case "/sniffed.pdf":
			serve("", "%PDF-1.7 "+strings.Repeat("x", 300))(w, r)
		case "/notes/vat-notes.txt":
			serve("text/plain; charset=utf-8", plain)(w, r)
		case "/latin1":
			serve("text/plain; charset=iso-8859-1", "Caf\xe9 cr\xe8me. "+strings.Repeat("Du texte en fran\xe7ais. ", 15))(w, r)
		case "/broken":
			serve("text/plain", "bad \xff\xfe bytes\x00 and NUL. "+strings.Repeat("Filler text. ", 20))(w, r)
		case "/html-1251":
			body := "<html><head><meta charset=\"windows-1251\"><title>\xcd\xc4\xd1</title></head><body><article><p>" +
				strings.Repeat("\xcd\xc4\xd1 \xed\xe0 \xfd\xea\xf1\xef\xee\xf0\xf2 \xf0\xe0\xe2\xe5\xed 0%. ", 20) + "</p></article></body></html>"
			serve("text/html", body)(w, r)
		}
	})
	f := testFetcher(FetchConfig{})
	for _, p := range []string{"/doc.pdf", "/img", "/api", "/sniffed.pdf"} {
		_, err := f.Fetch(context.Background(), srv.URL+p)
		if err == nil || !strings.Contains(err.Error(), "content type") {
			t.Errorf("%s: err = %v, want a content type refusal", p, err)
		}
	}
	if _, err := f.Fetch(context.Background(), srv.URL+"/doc.pdf"); !strings.Contains(fmt.Sprint(err), "application/pdf") {
		t.Errorf("pdf: error does not name the type: %v", err)
	}

	page, err := f.Fetch(context.Background(), srv.URL+"/notes/vat-notes.txt")
	if err != nil {
		t.Fatal(err)
	}
	if page.Title != "vat-notes.txt" || !strings.HasPrefix(page.Text, "Plain notes on VAT.\n\nExports are zero-rated at 0%. More") {
		t.Errorf("plain: title %q, text %q", page.Title, page.Text)
	}
	if page.Excerpt != "Plain notes on VAT." {
		t.Errorf("plain: excerpt %q", page.Excerpt)
	}

	page, err = f.Fetch(context.Background(), srv.URL+"/latin1")
	if err != nil || !strings.HasPrefix(page.Text, "Café crème.") || !strings.Contains(page.Text, "français") {
		t.Errorf("latin1: %q, %v", page.Text, err)
	}
	page, err = f.Fetch(context.Background(), srv.URL+"/broken")
	if err != nil || !utf8.ValidString(page.Text) || strings.ContainsRune(page.Text, 0) || !strings.HasPrefix(page.Text, "bad ") {
		t.Errorf("broken: %q, %v", page.Text, err)
	}
	page, err = f.Fetch(context.Background(), srv.URL+"/html-1251")
	if err != nil || !strings.Contains(page.Text, "НДС на экспорт равен 0%.") || page.Title != "НДС" {
		t.Errorf("windows-1251: title %q, text %q, %v", page.Title, page.Text, err)
	}
}

func TestFetchRefusesSchemes(t *testing.T) {
	f := NewFetcher(FetchConfig{})
	for _, u := range []string{"file:///etc/passwd", "ftp://ftp.example/x", "javascript:alert(1)", "data:text/html,<p>x</p>", "gopher://x", "http:///nohost", "/relative"} {
		start := time.Now()
		_, err := f.Fetch(context.Background(), u)
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: err = %v", u, err)
		}
		if time.Since(start) > 100*time.Millisecond {
			t.Errorf("%s: took %s", u, time.Since(start))
		}
	}
}

func TestFetchRefusesPrivateAddresses(t *testing.T) {
	srv, hits := countingServer(t, serve("text/html", articleHTML))
	port := srv.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	f := NewFetcher(FetchConfig{Timeout: 5 * time.Second})
	cases := []struct{ url, kind string }{
		{srv.URL + "/", "127.0.0.1 is a loopback address"},
		{fmt.Sprintf("http://localhost:%d/", port), "is a loopback address"},
		{fmt.Sprintf("http://[::1]:%d/", port), "::1 is a loopback address"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"},
		{"http://10.0.0.1/", "10.0.0.1 is a private address"},
		{"http://[::ffff:127.0.0.1]:1/", "is a loopback address"},
		{"http://0.0.0.0:1/", "is an unspecified address"},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := f.Fetch(context.Background(), c.url)
		if !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("%s: err = %v, want ErrPrivateAddress", c.url, err)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "fetch "+c.url+": refused: ") || !strings.Contains(msg, c.kind) || !strings.Contains(msg, "YAKOR_RESEARCH_ALLOW_PRIVATE=1") {
			t.Errorf("%s: message %q", c.url, msg)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: took %s, want an immediate refusal", c.url, d)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server was hit %d times", n)
	}
}

func TestNonPublicKind(t *testing.T) {
	cases := []struct{ ip, kind string }{
		{"127.0.0.1", "a loopback"},
		{"127.8.9.10", "a loopback"},
		{"::1", "a loopback"},
		{"::ffff:127.0.0.1", "a loopback"},
		{"64:ff9b::7f00:1", "a loopback"},
		{"10.1.2.3", "a private"},
		{"172.16.0.1", "a private"},
		{"172.31.255.255", "a private"},
		{"192.168.1.1", "a private"},
		{"::ffff:192.168.1.1", "a private"},
		{"fd00::1", "a private"},
		{"fc00::1", "a private"},
		{"169.254.169.254", "a link-local"},
		{"fe80::1", "a link-local"},
		{"fe80::1%eth0", "a link-local"},
		{"0.0.0.0", "an unspecified"},
		{"0.1.2.3", "an unspecified"},
		{"::", "an unspecified"},
		{"224.0.0.1", "a multicast"},
		{"239.255.255.250", "a multicast"},
		{"ff02::1", "a multicast"},
		{"100.64.1.1", "a shared (CGNAT)"},
		{"100.127.255.254", "a shared (CGNAT)"},
		{"255.255.255.255", "a reserved"},
		{"93.184.216.34", ""},
		{"8.8.8.8", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"2606:4700::1111", ""},
		{"::ffff:93.184.216.34", ""},
	}
	for _, c := range cases {
		if got := nonPublicKind(netip.MustParseAddr(c.ip)); got != c.kind {
			t.Errorf("nonPublicKind(%s) = %q, want %q", c.ip, got, c.kind)
		}
	}
}
