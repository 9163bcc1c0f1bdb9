package likbez

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// searxngMaxBody bounds the JSON answer read from SearXNG.
const searxngMaxBody = 4 << 20

// userAgent is the default User-Agent of every request this package makes.
const userAgent = "Yakor-likbez/1 (+https://github.com/yakor)"

// Result is one search result.
type Result struct {
	URL     string // the result's address (http or https)
	Title   string // the result's title, as the engine gave it
	Content string // the engine's snippet; may be empty
}

// SearXNG queries a SearXNG instance's JSON API.
//
// It talks to the configured instance with an ordinary HTTP client: the
// instance is trusted configuration and may well live on a private network,
// so the SSRF guard of Fetcher does not apply to it.
type SearXNG struct {
	base   string
	client *http.Client
}

// NewSearXNG returns a client of the SearXNG instance at baseURL (for example
// "http://searxng:8080" or "https://example.org/searx/"). A nil client means
// a default one with a 15 s timeout.
func NewSearXNG(baseURL string, client *http.Client) *SearXNG {
	if client == nil {
		client = &http.Client{Timeout: 15 * time.Second}
	}
	return &SearXNG{base: strings.TrimSpace(baseURL), client: client}
}

// searxngAnswer is the part of SearXNG's JSON answer that is used.
type searxngAnswer struct {
	Query   string `json:"query"`
	Results []struct {
		URL     string `json:"url"`
		Title   string `json:"title"`
		Content string `json:"content"`
		Engine  string `json:"engine"`
	} `json:"results"`
}

// Search returns up to n results for query, in the engine's order, without
// duplicates (same URL) and only http/https URLs. n <= 0 means no limit
// (every result of SearXNG's first page).
func (s *SearXNG) Search(ctx context.Context, query string, n int) ([]Result, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, errors.New("searxng: empty query")
	}
	endpoint, err := s.endpoint(query)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("searxng: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("searxng: search %q: %w", query, err)
	}
	defer resp.Body.Close()

	body, err := io.ReadAll(io.LimitReader(resp.Body, searxngMaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("searxng: search %q: reading answer: %w", query, err)
	}
	if resp.StatusCode != http.StatusOK {
		snippet := body
		if len(snippet) > 200 {
			snippet = snippet[:200]
		}
		msg := fmt.Sprintf("searxng: search %q: status %s: %q", query, resp.Status, strings.ToValidUTF8(string(snippet), "\uFFFD"))
		if resp.StatusCode == http.StatusForbidden {
			msg += " (SearXNG answers 403 when the JSON API is off: enable the json format in SearXNG's settings.yml (search.formats))"
		}
		return nil, errors.New(msg)
	}
	if len(body) > searxngMaxBody {
		return nil, fmt.Errorf("searxng: search %q: answer larger than %d bytes", query, searxngMaxBody)
	}
	var ans searxngAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("searxng: search %q: bad JSON answer: %w", query, err)
	}

	out := make([]Result, 0, len(ans.Results))
	seen := make(map[string]bool, len(ans.Results))
	for _, r := range ans.Results {
		if n > 0 && len(out) >= n {
			break
		}
		raw := strings.TrimSpace(r.URL)
		key, ok := resultKey(raw)
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Result{
			URL:     raw,
			Title:   strings.TrimSpace(r.Title),
			Content: strings.TrimSpace(r.Content),
		})
	}
	return out, nil
}

// endpoint builds {base}/search?q=query&format=json, keeping any path prefix
// (and query parameters) of the base URL.
func (s *SearXNG) endpoint(query string) (string, error) {
	if s.base == "" {
		return "", errors.New("searxng: no base URL configured")
	}
	u, err := url.Parse(s.base)
	if err != nil {
		return "", fmt.Errorf("searxng: bad base URL %q: %w", s.base, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("searxng: base URL %q is not an http(s) URL", s.base)
	}
	u = u.JoinPath("search")
	v := u.Query()
	v.Set("q", query)
	v.Set("format", "json")
	u.RawQuery = v.Encode()
	u.Fragment = ""
	return u.String(), nil
}

// resultKey reports whether raw is an absolute http(s) URL and returns the
// key that identifies it among duplicates: scheme and host lower-cased,
// fragment dropped.
func resultKey(raw string) (string, bool) {
	if raw == "" {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Host == "" {
		return "", false
	}
	u.Scheme = scheme
	u.Host = strings.ToLower(u.Host)
	u.Fragment = ""
	u.RawFragment = ""
	return u.String(), true
}
