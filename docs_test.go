package yakor_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The README is a page, not a manual.
const maxReadmeChars = 10_000

var (
	codeBlock  = regexp.MustCompile("(?s)```.*?```")
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	mdLink     = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	heading    = regexp.MustCompile(`(?m)^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// TestDocs: the README fits on a page and links every page of docs/; every
// relative link of the README and docs/ resolves to a file of the
// repository (and to a heading of it, for #anchors); nothing points
// outside the repository, which a user's clone does not have.
func TestDocs(t *testing.T) {
	readme := readDoc(t, "README.md")
	if n := utf8.RuneCountInString(readme); n > maxReadmeChars {
		t.Errorf("README.md is %d characters, more than %d: move the detail to docs/", n, maxReadmeChars)
	}
	pages, err := filepath.Glob("docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs/*.md: %v", err)
	}
	for _, p := range pages {
		if !strings.Contains(readme, "("+p+")") && !strings.Contains(readme, "("+p+"#") {
			t.Errorf("README.md does not link %s", p)
		}
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{"README.md"}, pages...) {
		text := readDoc(t, f)
		if strings.Contains(text, "../shared") {
			t.Errorf("%s mentions ../shared, outside the repository", f)
		}
		text = inlineCode.ReplaceAllString(codeBlock.ReplaceAllString(text, ""), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			checkLink(t, root, f, m[1])
		}
	}
}

// checkLink fails unless target, linked from file f, is inside root and
// exists (with the heading its #anchor names).
func checkLink(t *testing.T, root, f, target string) {
	t.Helper()
	if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
		return // a URL
	}
	path, anchor, _ := strings.Cut(target, "#")
	dest := f
	if path != "" {
		dest = filepath.Join(filepath.Dir(f), path)
	}
	abs, err := filepath.Abs(dest)
	if err != nil || !strings.HasPrefix(abs, root+string(filepath.Separator)) {
		t.Errorf("%s: %s leaves the repository", f, target)
		return
	}
	if _, err := os.Stat(dest); err != nil {
		t.Errorf("%s: %s: no such file", f, target)
		return
	}
	if anchor != "" && strings.HasSuffix(dest, ".md") && !slugs(readDoc(t, dest))[anchor] {
		t.Errorf("%s: %s: %s has no heading #%s", f, target, dest, anchor)
	}
}

// slugs are the anchors GitHub gives a page's headings.
func slugs(doc string) map[string]bool {
	out, seen := map[string]bool{}, map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(codeBlock.ReplaceAllString(doc, ""), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		s := b.String()
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
