package facts

import (
	"regexp"
	"strings"
	"time"
)

// personalPatterns are what marks a text as personal data without a model:
// a run of more than two digits (a PIN, an amount, a phone, an account), an
// e-mail address, a phone number, and a URL with a query.
var personalPatterns = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a number of more than two digits", regexp.MustCompile(`\d{3,}`)},
	{"an e-mail address", regexp.MustCompile(`[^\s@]+@[^\s@]+\.[^\s@]+`)},
	{"a phone number", regexp.MustCompile(`\+?\d[\d\s().-]{6,}\d`)},
	{"a URL with a query", regexp.MustCompile(`(?i)\bhttps?://\S+\?\S+`)},
}

// Personal reports whether text may hold personal data, and what: the
// offline rule for what may be shared with every user of a tenant. Besides
// personalPatterns, a name the offline fact extractor finds ("My name is
// Ann") counts.
func Personal(text string) (what string, personal bool) {
	for _, p := range personalPatterns {
		if p.re.MatchString(text) {
			return p.what, true
		}
	}
	cands, _ := Offline(text, time.Time{})
	for _, c := range cands {
		if c.Slot == "user.name" || strings.HasSuffix(c.Slot, ".name") {
			return "a person's name", true
		}
	}
	return "", false
}
