package likbez

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"regexp"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

var (
	// ErrPrivateAddress is wrapped by the error of a fetch that would have
	// connected to a private, loopback, link-local or other non-public address.
	ErrPrivateAddress = errors.New("non-public address")
	// ErrTooLarge is wrapped by the error of a fetch whose body exceeds MaxBytes.
	ErrTooLarge = errors.New("page too large")
)

const (
	// MinTextRunes is the shortest readable text Fetch accepts; a page with
	// less is refused with a "no readable text" error.
	MinTextRunes = 200
	// MaxTextRunes caps Page.Text.
	MaxTextRunes = 100_000
)

// FetchConfig bounds one page fetch. Zero fields take their defaults.
type FetchConfig struct {
	Timeout      time.Duration // whole fetch (connect, headers and body); default 15s
	MaxBytes     int64         // body bytes read at most, a bigger page is refused with ErrTooLarge; default 2 MiB
	MaxRedirects int           // redirects followed at most; default 5
	AllowPrivate bool          // allow private, loopback, link-local, unspecified, multicast addresses (tests and intranets only)
	UserAgent    string        // default "Yakor-likbez/1 (+https://github.com/yakor)"
}

// Fetcher fetches web pages for research, refusing to reach private networks.
// It is safe for concurrent use.
type Fetcher struct {
	cfg    FetchConfig
	client *http.Client
}

// DefaultFetchConfig is the fetcher's configuration unless told otherwise.
func DefaultFetchConfig() FetchConfig {
	return FetchConfig{Timeout: 15 * time.Second, MaxBytes: 2 << 20, MaxRedirects: 5, UserAgent: userAgent}
}

// NewFetcher returns a Fetcher bounded by cfg.
func NewFetcher(cfg FetchConfig) *Fetcher {
	d := DefaultFetchConfig()
	cfg.Timeout = cmp.Or(max(cfg.Timeout, 0), d.Timeout)
	cfg.MaxBytes = cmp.Or(max(cfg.MaxBytes, 0), d.MaxBytes)
	cfg.MaxRedirects = cmp.Or(max(cfg.MaxRedirects, 0), d.MaxRedirects)
	if cfg.UserAgent == "" {
		cfg.UserAgent = d.UserAgent
	}
	f := &Fetcher{cfg: cfg}
	dialer := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second, Control: f.control}
	transport := &http.Transport{
		Proxy:               nil, // a proxy would dial for us and bypass the address check
		DialContext:         dialer.DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        20,
		IdleConnTimeout:     60 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	f.client = &http.Client{Transport: transport, CheckRedirect: f.checkRedirect}
	return f
}

// Page is an article's readable text.
type Page struct {
	URL     string // final URL after redirects
	Title   string // the article's title
	Text    string // readable text: paragraphs separated by one blank line, at most MaxTextRunes runes
	Excerpt string // a short summary or the first paragraph
	Bytes   int64  // body bytes read
}

// Fetch gets rawURL and extracts its readable text. Only http and https URLs
// are fetched; HTML, XHTML and plain text pages are accepted.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Page, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return Page{}, fmt.Errorf("fetch %s: bad URL: %w", rawURL, err)
	}
	if err := checkScheme(u); err != nil {
		return Page{}, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	page, err := f.fetch(ctx, u)
	if err != nil {
		var ue *url.Error // `Get "url": ...` would repeat the URL
		if errors.As(err, &ue) {
			err = ue.Err
		}
		var refused *refusedAddrError
		switch {
		case errors.As(err, &refused):
			return Page{}, fmt.Errorf("fetch %s: %w", rawURL, refused)
		case errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(err, ErrTooLarge):
			return Page{}, fmt.Errorf("fetch %s: timed out (limit %s): %w", rawURL, f.cfg.Timeout, err)
		}
		return Page{}, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	return page, nil
}

func (f *Fetcher) fetch(ctx context.Context, u *url.URL) (Page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, err
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		return Page{}, err
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if resp.StatusCode != http.StatusOK {
		return Page{}, fmt.Errorf("status %s", resp.Status)
	}

	header := resp.Header.Get("Content-Type")
	if header != "" { // refuse before reading the body
		if err := checkMediaType(header); err != nil {
			return Page{}, err
		}
	}
	if resp.ContentLength > f.cfg.MaxBytes {
		return Page{}, fmt.Errorf("%w: Content-Length is %d bytes, the limit is %d", ErrTooLarge, resp.ContentLength, f.cfg.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return Page{}, fmt.Errorf("reading body: %w", err)
	}
	if int64(len(body)) > f.cfg.MaxBytes {
		return Page{}, fmt.Errorf("%w: body is more than %d bytes", ErrTooLarge, f.cfg.MaxBytes)
	}
	if header == "" {
		header = http.DetectContentType(body)
		if err := checkMediaType(header); err != nil {
			return Page{}, err
		}
	}
	var page Page
	if mediaType, params, _ := mime.ParseMediaType(header); mediaType == "text/plain" {
		page = plainPage(body, params["charset"], final)
	} else if page, err = htmlPage(body, header, final); err != nil {
		return Page{}, err
	}
	page.URL = final.String()
	page.Bytes = int64(len(body))
	page.Text = capRunes(page.Text, MaxTextRunes)
	if utf8.RuneCountInString(page.Text) < MinTextRunes {
		return Page{}, fmt.Errorf("no readable text (%d characters, %d needed)", utf8.RuneCountInString(page.Text), MinTextRunes)
	}
	if page.Excerpt == "" {
		page.Excerpt = firstParagraph(page.Text)
	}
	return page, nil
}

// checkScheme refuses anything but absolute http and https URLs.
func checkScheme(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("refused: only http and https URLs are fetched, not %q", u.Scheme+":")
	}
	if u.Host == "" {
		return errors.New("refused: URL has no host")
	}
	return nil
}

// checkMediaType accepts a Content-Type of HTML, XHTML or plain text only.
func checkMediaType(contentType string) error {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return fmt.Errorf("refused: bad content type %q: %w", contentType, err)
	}
	switch mediaType {
	case "text/html", "application/xhtml+xml", "text/plain":
		return nil
	}
	return fmt.Errorf("refused: content type %q is not HTML or plain text", mediaType)
}

// checkRedirect bounds the redirect chain and checks each target's scheme.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("more than %d redirects", f.cfg.MaxRedirects)
	}
	if err := checkScheme(req.URL); err != nil {
		return fmt.Errorf("redirect to %s: %w", req.URL, err)
	}
	return nil
}

// refusedAddrError tells why a dial was refused; it wraps ErrPrivateAddress.
type refusedAddrError struct {
	addr string
	kind string
}

func (e *refusedAddrError) Error() string {
	return fmt.Sprintf("refused: %s is %s address (set YAKOR_RESEARCH_ALLOW_PRIVATE=1 for tests and intranets)", e.addr, e.kind)
}

func (e *refusedAddrError) Unwrap() error { return ErrPrivateAddress }

// control runs on every socket before it connects: it checks the IP actually
// dialed, whatever DNS said and after every redirect.
func (f *Fetcher) control(network, address string, _ syscall.RawConn) error {
	if f.cfg.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &refusedAddrError{addr: address, kind: "an unparsable"}
	}
	if kind := nonPublicKind(ap.Addr()); kind != "" {
		return &refusedAddrError{addr: ap.Addr().String(), kind: kind}
	}
	return nil
}

var (
	cgnatPrefix = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	reserved4   = netip.MustParsePrefix("240.0.0.0/4") // includes 255.255.255.255
	siteLocal6  = netip.MustParsePrefix("fec0::/10")
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
)

// nonPublicKind returns "" for a public unicast address, else an article and
// an adjective naming the kind of address ("a loopback", "a private", ...).
// IPv4-mapped and NAT64 forms are judged by the IPv4 address they carry.
func nonPublicKind(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	if ip.Is6() && nat64Prefix.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case !ip.IsValid():
		return "an invalid"
	case ip.IsUnspecified(), ip.Is4() && thisNetwork.Contains(ip):
		return "an unspecified"
	case ip.IsLoopback():
		return "a loopback"
	case ip.IsPrivate(), siteLocal6.Contains(ip):
		return "a private"
	case ip.IsLinkLocalUnicast():
		return "a link-local"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast"
	case cgnatPrefix.Contains(ip):
		return "a shared (CGNAT)"
	case reserved4.Contains(ip):
		return "a reserved"
	}
	return ""
}

// plainPage turns a text/plain body in charset cs (UTF-8 when empty or
// unknown) into a Page titled after the URL's last path segment or host.
func plainPage(body []byte, cs string, u *url.URL) Page {
	if enc, _ := charset.Lookup(cs); enc != nil {
		if out, err := enc.NewDecoder().Bytes(body); err == nil {
			body = out
		}
	}
	title := u.Hostname()
	if seg := path.Base(u.Path); seg != "" && seg != "/" && seg != "." {
		title = seg
	}
	return Page{Title: title, Text: cleanText(string(body))}
}

// htmlPage extracts the readable text of an HTML body. contentType is the
// response's Content-Type, used (with BOM and <meta>) to find the charset.
func htmlPage(body []byte, contentType string, u *url.URL) (Page, error) {
	enc, _, _ := charset.DetermineEncoding(body, contentType)
	if utf, err := enc.NewDecoder().Bytes(body); err == nil {
		body = utf
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return Page{}, fmt.Errorf("parsing HTML: %w", err)
	}
	parser := readability.NewParser()
	article, err := parser.ParseDocument(doc, u)
	var page Page
	if err == nil && article.Node != nil {
		var sb strings.Builder
		if article.RenderText(&sb) == nil {
			page.Text = cleanText(sb.String())
		}
		page.Title = cleanLine(article.Title())
		page.Excerpt = cleanLine(article.Excerpt())
	}
	if utf8.RuneCountInString(page.Text) < MinTextRunes {
		if fallback := visibleText(doc); utf8.RuneCountInString(fallback) > utf8.RuneCountInString(page.Text) {
			page.Text = fallback
		}
	}
	if page.Title == "" {
		page.Title = cleanLine(elementText(doc, "title"))
	}
	// "Heading | Site name": the page's own <h1> is the better title.
	if h1 := cleanLine(elementText(doc, "h1")); h1 != "" && page.Title != h1 && strings.Contains(page.Title, h1) {
		page.Title = h1
	}
	if page.Title == "" {
		page.Title = u.Hostname()
	}
	return page, nil
}

// boilerplateTags are left out of the fallback visible text.
var boilerplateTags = map[string]bool{
	"head": true, "script": true, "style": true, "noscript": true, "template": true,
	"nav": true, "header": true, "footer": true, "aside": true, "form": true,
	"iframe": true, "svg": true, "button": true, "select": true, "dialog": true,
}

// visibleText is the page's text without scripts, styles and page chrome
// (nav, header, footer, aside, forms, hidden elements). doc is left intact.
func visibleText(doc *html.Node) string {
	var strip func(*html.Node) *html.Node
	strip = func(n *html.Node) *html.Node {
		c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: n.Attr}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.CommentNode {
				continue
			}
			_, hidden := attr(ch, "hidden")
			if ariaHidden, _ := attr(ch, "aria-hidden"); ch.Type == html.ElementNode && (boilerplateTags[ch.Data] || hidden || ariaHidden == "true") {
				continue
			}
			c.AppendChild(strip(ch))
		}
		return c
	}
	return cleanText(render.InnerText(strip(doc)))
}

// elementText is the text of the document's first element named tag.
func elementText(n *html.Node, tag string) string {
	if n.Type == html.ElementNode && n.Data == tag {
		return render.InnerText(n)
	}
	if n.Type == html.ElementNode && (n.Data == "svg" || n.Data == "math" || n.Data == "script" || n.Data == "template") {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := elementText(c, tag); t != "" {
			return t
		}
	}
	return ""
}

// attr returns the value of n's attribute key and whether n has it.
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

var (
	blankLines   = regexp.MustCompile(`\n{3,}`)
	trailingWS   = regexp.MustCompile(`[ \t\x{00A0}]+\n`)
	controlChars = regexp.MustCompile(`[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]`)
)

// cleanText makes text valid UTF-8 without NUL or other control characters,
// with Unix line ends, no trailing spaces, runs of blank lines collapsed to
// one, and trimmed.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = controlChars.ReplaceAllString(s, "")
	s = trailingWS.ReplaceAllString(s, "\n")
	s = blankLines.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

// cleanLine is cleanText on one line: whitespace runs become one space.
func cleanLine(s string) string {
	return strings.Join(strings.Fields(cleanText(s)), " ")
}

// firstParagraph is the text's first paragraph, at most 300 runes.
func firstParagraph(text string) string {
	p, _, _ := strings.Cut(text, "\n\n")
	return capRunes(cleanLine(p), 300)
}

// capRunes cuts s to at most n runes.
func capRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n]))
}
