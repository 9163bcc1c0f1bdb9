package facts

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"yakor/words"
)

// setFact is one fact the labelled set expects of a message.
type setFact struct {
	kind, scope  string
	keys, absent []string // normalized (setNorm)
}

// setCase is one message of the labelled set.
type setCase struct {
	line     int
	category string
	at       time.Time
	message  string
	want     []setFact
}

// setDefaultAt is when a message of the set is said unless it says:
// Wednesday 2026-03-11, noon UTC.
var setDefaultAt = time.Date(2026, 3, 11, 12, 0, 0, 0, time.UTC)

// setGroupRe is a space between digits ("450 000"), dropped by setNorm.
var setGroupRe = regexp.MustCompile(`(\d)[\s\x{00a0}\x{202f}]+(\d)`)

// setNorm folds s and drops the spaces that group digits, so that a key
// "450000" matches "450 000 ₽".
func setNorm(s string) string {
	s = words.Fold(s)
	for {
		t := setGroupRe.ReplaceAllString(s, "$1$2")
		if t == s {
			return s
		}
		s = t
	}
}

// readSet reads testdata/offline_facts.tsv (its header says the format).
func readSet(t testing.TB) []setCase {
	t.Helper()
	f, err := os.Open("testdata/offline_facts.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []setCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, parseSetLine(t, n, line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// parseSetLine reads line n of the set.
func parseSetLine(t testing.TB, n int, line string) setCase {
	t.Helper()
	cols := strings.Split(line, "\t")
	if len(cols) != 4 {
		t.Fatalf("offline_facts.tsv:%d: %d columns, want 4", n, len(cols))
	}
	c := setCase{line: n, category: cols[0], at: setDefaultAt, message: strings.ReplaceAll(cols[2], `\n`, "\n")}
	if cols[1] != "-" {
		day, err := time.Parse(time.DateOnly, cols[1])
		if err != nil {
			t.Fatalf("offline_facts.tsv:%d: %v", n, err)
		}
		c.at = day.Add(12 * time.Hour)
	}
	if cols[3] == "-" {
		if !strings.HasPrefix(c.category, "none") {
			t.Fatalf("offline_facts.tsv:%d: no fact expected outside the none groups", n)
		}
		return c
	}
	for _, f := range strings.Split(cols[3], ";;") {
		head, keys, ok := strings.Cut(f, ":")
		kind, scope, ok2 := strings.Cut(strings.TrimSpace(head), "/")
		if !ok || !ok2 || !validKind(kind) || !slices.Contains([]string{ScopeChat, ScopeUser, ScopeProject}, scope) {
			t.Fatalf("offline_facts.tsv:%d: bad fact %q", n, f)
		}
		w := setFact{kind: kind, scope: scope}
		for _, k := range strings.Split(keys, "|") {
			if k = setNorm(strings.TrimSpace(k)); strings.HasPrefix(k, "!") {
				w.absent = append(w.absent, k[1:])
			} else if k != "" {
				w.keys = append(w.keys, k)
			}
		}
		c.want = append(c.want, w)
	}
	if strings.HasPrefix(c.category, "none") {
		t.Fatalf("offline_facts.tsv:%d: a fact expected in a none group", n)
	}
	return c
}

// matches reports whether c is the fact w expects: the same kind and
// scope, every key in its text or value, no absent key there.
func (w setFact) matches(c Candidate) bool {
	if c.Kind != w.kind || c.Scope != w.scope {
		return false
	}
	text := setNorm(c.Text + " " + c.Value)
	return !slices.ContainsFunc(w.keys, func(k string) bool { return !strings.Contains(text, k) }) &&
		!slices.ContainsFunc(w.absent, func(k string) bool { return strings.Contains(text, k) })
}

// setTally counts one group of the set.
type setTally struct {
	messages, quiet   int // messages; those that yielded nothing
	produced, correct int // facts produced; those expected
	expected, found   int // facts expected; those produced
	wrong, missed     []string
}

// score matches what Offline produced for c against what c expects: each
// produced fact takes the first expected fact it matches that no other
// took.
func (tl *setTally) score(c setCase, got []Candidate) {
	tl.messages++
	if len(got) == 0 {
		tl.quiet++
	}
	taken := make([]bool, len(c.want))
	for _, g := range got {
		tl.produced++
		i := -1
		for j, w := range c.want {
			if !taken[j] && w.matches(g) {
				i = j
				break
			}
		}
		if i < 0 {
			tl.wrong = append(tl.wrong, fmt.Sprintf("line %d %q: produced %s/%s %q (value %q)", c.line, c.message, g.Kind, g.Scope, g.Text, g.Value))
			continue
		}
		taken[i] = true
		tl.correct++
	}
	for i, w := range c.want {
		tl.expected++
		if taken[i] {
			tl.found++
		} else {
			tl.missed = append(tl.missed, fmt.Sprintf("line %d %q: missed %s/%s %q", c.line, c.message, w.kind, w.scope, w.keys))
		}
	}
}

// ratio is num/den, 1 when den is 0.
func ratio(num, den int) float64 {
	if den == 0 {
		return 1
	}
	return float64(num) / float64(den)
}

// TestOfflineSet runs Offline over the labelled set
// (testdata/offline_facts.tsv: at least 200 Russian and English messages,
// at least 80 of them in the "none-…" groups that must yield nothing) and
// reports precision and recall overall, for the none groups and per
// category. A produced fact is correct when it is one an expected fact of
// its message describes: the same kind and scope, every key of it (a name,
// a figure, a version, the ISO date a relative day resolves to) in its
// text or value and none of its absent keys (the value a correction
// replaced), each expected fact taken by one produced fact at most.
// Precision is correct facts over facts produced (every fact of a none
// group is wrong), recall found facts over facts expected. It fails below
// precision 0.95 or recall 0.6.
func TestOfflineSet(t *testing.T) {
	cases := readSet(t)
	groups := map[string]*setTally{}
	var all, none setTally
	for _, c := range cases {
		got, _ := Offline(c.message, c.at)
		if groups[c.category] == nil {
			groups[c.category] = &setTally{}
		}
		for _, tl := range []*setTally{groups[c.category], &all} {
			tl.score(c, got)
		}
		if strings.HasPrefix(c.category, "none") {
			none.score(c, got)
		}
	}
	names := make([]string, 0, len(groups))
	for name := range groups {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		g := groups[name]
		t.Logf("%-17s %3d messages: %3d facts produced, %3d correct; %3d expected, %3d found; %3d quiet",
			name, g.messages, g.produced, g.correct, g.expected, g.found, g.quiet)
		for _, s := range slices.Concat(g.wrong, g.missed) {
			t.Logf("    %s", s)
		}
	}
	precision, recall := ratio(all.correct, all.produced), ratio(all.found, all.expected)
	t.Logf("none groups: %d messages, %d yielded nothing (%.3f), %d facts produced", none.messages, none.quiet, ratio(none.quiet, none.messages), none.produced)
	t.Logf("overall: %d messages, precision %.3f (%d/%d), recall %.3f (%d/%d)",
		all.messages, precision, all.correct, all.produced, recall, all.found, all.expected)
	if all.messages < 200 || none.messages < 80 {
		t.Fatalf("the set has %d messages, %d in the none groups; want at least 200 and 80", all.messages, none.messages)
	}
	if precision < 0.95 || recall < 0.6 {
		t.Errorf("precision %.3f, recall %.3f; want at least 0.95 and 0.6", precision, recall)
	}
}

// FuzzOffline: whatever the message, Offline does not panic and every
// candidate has a known kind and scope, a text, and a confidence in (0, 1].
// The labelled set's messages are its seeds.
func FuzzOffline(f *testing.F) {
	for _, c := range readSet(f) {
		f.Add(c.message)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		cands, _ := Offline(msg, setDefaultAt)
		for _, c := range cands {
			if !validKind(c.Kind) || !slices.Contains([]string{ScopeChat, ScopeUser, ScopeProject}, c.Scope) || c.Text == "" ||
				c.Confidence <= 0 || c.Confidence > 1 {
				t.Errorf("Offline(%q): bad candidate %+v", msg, c)
			}
		}
	})
}
