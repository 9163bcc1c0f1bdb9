package history

// The text helpers of OfflineSummary: sentences, words, what a sentence
// carries, deduplication and the size bound.

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

func sumIsMessage(m Message) bool { return m.Kind == "" || m.Kind == KindMessage }

func sumOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// sumClip puts s on one line and cuts it to n runes with "…", keeping the
// first number in view when it lies past three quarters of n.
func sumClip(s string, n int) string {
	s = sumOneLine(s)
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	start, pre := 0, ""
	if i := slices.IndexFunc(rs, unicode.IsDigit); i >= n*3/4 {
		start, pre = i-n/4, "…"
	}
	if room := n - len([]rune(pre)); len(rs)-start > room {
		return pre + strings.TrimSpace(string(rs[start:start+room-1])) + "…"
	}
	return pre + string(rs[start:])
}

// sumCutBullet returns line without its list bullet.
func sumCutBullet(line string) (string, bool) {
	for _, b := range []string{"- ", "* ", "• ", "– ", "— "} {
		if rest, ok := strings.CutPrefix(line, b); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return line, false
}

// sumSentences splits text into trimmed sentences: at line ends and after
// . ! ? … (with closing quotes) followed by a space, but not after a bare
// list number ("1."), an initial or an abbreviation.
func sumSentences(text string) []string {
	var out []string
	add := func(rs []rune) {
		if s := strings.TrimSpace(string(rs)); s != "" {
			out = append(out, s)
		}
	}
	for line := range strings.Lines(text) {
		line, _ = sumCutBullet(strings.TrimSpace(line))
		rs := []rune(line)
		start := 0
		for i := 0; i < len(rs); i++ {
			if !strings.ContainsRune(".!?…", rs[i]) {
				continue
			}
			j := i
			for j+1 < len(rs) && strings.ContainsRune(".!?…\"')»”", rs[j+1]) {
				j++
			}
			if j+1 < len(rs) && !unicode.IsSpace(rs[j+1]) {
				i = j
				continue
			}
			if rs[i] == '.' && j == i {
				before := strings.TrimSpace(string(rs[start:i]))
				last := before[strings.LastIndexFunc(before, unicode.IsSpace)+1:]
				r, n := utf8.DecodeRuneInString(last)
				if strings.Trim(before, "0123456789") == "" || n == len(last) && unicode.IsUpper(r) ||
					strings.Contains(last, ".") || sumAbbrevs[words.Fold(last)] {
					continue // "1.", "J. Smith", "e.g.", "руб."
				}
			}
			add(rs[start : j+1])
			start, i = j+1, j
		}
		add(rs[start:])
	}
	return out
}

func sumSet(list string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(list) {
		set[words.Fold(strings.ReplaceAll(w, "_", " "))] = true
	}
	return set
}

// Word lists, folded; "_" joins a pair of adjacent words.
var (
	sumAbbrevs    = sumSet("mr mrs ms dr st vs etc no tel руб тыс млн ул им стр т д г")
	sumCarryWords = sumSet(`january february march april june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday
		today tomorrow tonight yesterday март марта марте май мая мае понедельник вторник среда среду четверг
		пятница пятницу суббота субботу воскресенье сегодня завтра послезавтра вчера
		decided decide decision agreed agree settled confirmed final deal total totals subtotal итого решили
		решено решение договорились договорённость согласовали согласен согласна выбрали ok_let's okay_let's
		let's_go we'll_go go_ahead`)
	sumDatePrefixes = []string{"январ", "феврал", "апрел", "июн", "июл", "август", "сентябр", "октябр", "ноябр", "декабр"}
	sumPromiseWords = sumSet("later позже проверю вернусь уточню i_will i'll_check i'll_get i'll_look i'll_confirm will_check get_back")
)

// sumWords splits s into words of letters, digits and inner apostrophes.
func sumWords(s string) []string {
	ws := strings.FieldsFunc(strings.ReplaceAll(s, "’", "'"), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	for i := range ws {
		ws[i] = strings.Trim(ws[i], "'")
	}
	return ws
}

// sumHas reports whether s has a word or a pair of adjacent words of set.
func sumHas(s string, set map[string]bool) bool {
	prev := ""
	for _, w := range sumWords(s) {
		w = words.Fold(w)
		if set[w] || set[prev+" "+w] {
			return true
		}
		prev = w
	}
	return false
}

// sumCarries reports whether s carries a number, a price, a date, a name
// (a capitalized word past the first) or a decision word.
func sumCarries(s string) bool {
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsDigit(r) || strings.ContainsRune("$€£₽¥", r) }) ||
		sumHas(s, sumCarryWords) {
		return true
	}
	ws := sumWords(s)
	for i, w := range ws {
		r, _ := utf8.DecodeRuneInString(w)
		// A name carries a statement ("Anna Petrova leads the team"), not a
		// greeting ("Thanks, Mel!").
		if i > 0 && len(ws) >= 6 && unicode.IsUpper(r) && w != "I" && !strings.HasPrefix(w, "I'") ||
			slices.ContainsFunc(sumDatePrefixes, func(p string) bool { return strings.HasPrefix(words.Fold(w), p) }) {
			return true
		}
	}
	return false
}

// sumAnswered reports whether one of the folded answers ("" for none)
// holds at least half of item's keyword stems (any answer, if it has none).
func sumAnswered(item string, answers []string) bool {
	kws := words.Keywords(item, nil)
	for _, f := range answers {
		shared := 0
		for _, k := range kws {
			if strings.Contains(f, k.Stem) {
				shared++
			}
		}
		if f != "" && 2*shared >= len(kws) {
			return true
		}
	}
	return false
}

// sumDedupe appends the items of lists to out, on one line each, skipping
// empty ones and ones whose folded words occur in a kept item's; a longer
// item replaces the shorter one it contains.
func sumDedupe(out []string, lists ...[]string) []string {
	key := func(s string) string { return " " + words.Fold(sumOneLine(s)) + " " }
	for _, list := range lists {
	next:
		for _, it := range list {
			if it = sumOneLine(it); it == "" {
				continue
			}
			for i, k := range out {
				if strings.Contains(key(k), key(it)) {
					continue next
				}
				if strings.Contains(key(it), key(k)) {
					out[i] = it
					continue next
				}
			}
			out = append(out, it)
		}
	}
	return out
}

// sumBound drops and cuts s's parts, as OfflineSummary describes, until it
// renders in both languages with the widest ids in at most maxChars runes
// (or nothing is left but the header).
func sumBound(s Summary, maxChars int) Summary {
	over := func(s Summary) int {
		return max(utf8.RuneCountInString(s.Render("en", math.MaxInt64, math.MaxInt64)),
			utf8.RuneCountInString(s.Render("ru", math.MaxInt64, math.MaxInt64))) - maxChars
	}
	if maxChars <= 0 || over(s) <= 0 {
		return s
	}
	// Drop in order, each item saving its runes + "\n- " (a section title's
	// line is a bonus), then keep the rest in their order.
	lists, need := [2][]string{s.Resolved, s.Pending}, over(s)
	dropped := [2]map[int]bool{{}, {}}
	for _, digit := range []bool{false, true} {
		for l, list := range lists {
			for i, it := range list {
				if need > 0 && strings.ContainsFunc(it, unicode.IsDigit) == digit {
					dropped[l][i] = true
					need -= utf8.RuneCountInString(it) + 3
				}
			}
		}
	}
	out := Summary{ActiveTask: s.ActiveTask}
	for l, kept := range []*[]string{&out.Resolved, &out.Pending} {
		for i, it := range lists[l] {
			if !dropped[l][i] {
				*kept = append(*kept, it)
			}
		}
	}
	for o := over(out); o > 0 && out.ActiveTask != ""; o = over(out) {
		if n := utf8.RuneCountInString(out.ActiveTask) - o; n >= 10 {
			out.ActiveTask = sumClip(out.ActiveTask, n)
		} else {
			out.ActiveTask = ""
		}
	}
	return out
}

// Carries reports whether a sentence carries something worth keeping on
// its own: a number, a price, a date or a day, a name (a capitalized word
// past the first of a sentence of six words or more) or a decision word,
// as the offline summary chooses its items.
func Carries(s string) bool { return sumCarries(s) }
