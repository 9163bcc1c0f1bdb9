package facts

// Offline's rules about the project's constraints: its budget and its
// deadline.

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

var (
	factBudgRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:budget|бюджет(?:а|у|ом|е)?)(?:[^\p{L}]|$)`)
	// factOverRe makes an amount a threshold, not a budget: "budgets over
	// 5k", "бюджет свыше 100 тысяч".
	factOverRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:over|above|under|below|more than|less than|exceeding|свыше|больше|меньше|выше|ниже|от)(?:[^\p{L}]|$)`)
	// factChangeRe is a budget or deadline changed: "was cut to", "урезали".
	factChangeRe = regexp.MustCompile(`(?i:cut|raised|increased|reduced|lowered|moved|pushed|changed|урезал\p{L}*|увеличил\p{L}*|уменьшил\p{L}*|сократил\p{L}*|поднял\p{L}*|изменил\p{L}*)`)
	factNumRe    = regexp.MustCompile(`[$€£₽]\s?\d|\d`)
	factYearRe   = regexp.MustCompile(`^(?:19|20)\d\d$`)
	factAmtRe    = regexp.MustCompile(`^[$€£₽]?\s?\d[\d.,]*(?:\s\d{3}(?:[.,]\d+)?)*\p{L}{0,3}`)
	factUnitRe   = regexp.MustCompile(`^(?i:k|m|bn|mln|millions?|thousands?|billions?|usd|eur|gbp|rub|dollars?|euros?|r[ou]bles?|тыс\p{L}*|млн|миллион\p{L}*|млрд|миллиард\p{L}*|руб\p{L}*|р|долл\p{L}*|евро|[$€£₽])\.?$`)
	// factPerRe is the period an amount is for: "per month", "в месяц".
	factPerRe = regexp.MustCompile(`^\s*(?i:per\s+(?:month|year|week|quarter)|a\s+(?:month|year)|monthly|yearly|annually|в\s+(?:месяц|год|неделю|квартал)|ежемесячно)`)
	// factFormerRe is a former one's: "last project's budget", "старый
	// дедлайн".
	factFormerRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:last|previous|former|old|прошл\p{L}*|предыдущ\p{L}*|стар\p{L}*|бывш\p{L}*)(?:\s+\S+)?\s*$`)
	// factOtherRe is someone else's: "his budget", "их дедлайн".
	factOtherRe = regexp.MustCompile(`(?i:(?:^|[^\p{L}])(?:his|her|their|its|его|её|ее|их|чужой|чужом)\s*$)`)
	factDueRe   = regexp.MustCompile(`(?:^|[^\p{L}])(?i:deadlines?|due\s+date|due\s+(?:by|on|before)|дедлайн\p{L}*|срок\s+сдачи|крайний\s+срок|сроки?\s+(?:проекта|по\s+проекту)|срок\s*[—:–-]|сдача\s+проекта)(?:[^\p{L}]|$)`)
	// factDueVerbRe is a verb of handing over, not in the past: "ship",
	// "deliver", "be delivered", "сдаём", "сдать".
	factDueVerbRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:ship|ships|shipping|launch|launches|launching|deliver|delivers|delivering|submit|submitting|finish|finishing|release|releasing|hand\s+in|be\s+(?:delivered|shipped|submitted|released|finished|done)|needed|(?:wants?|needs?)\s+(?:it|this|that|everything)|have\s+until|нужн\p{L}*|сдать|сдаём|сдаем|сдадим|сдавать|выпустить|запустить|запускаем|выпускаем)(?:[^\p{L}]|$)`)
	// factByRe is what makes an English verb's day a deadline.
	factByRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:by|before|until|no later than)(?:[^\p{L}]|$)`)
	// factDateRe is a date something is set for: "the launch date", "дата
	// релиза", "релиз назначен на" ("переносим релиз на апрель" decides).
	factDateRe = regexp.MustCompile(`(?:^|[^\p{L}])((?i:(?:the\s+|our\s+)?(?:launch|release|go-live|delivery|submission)\s+date|дата\s+(?:релиза|запуска|сдачи|поставки)|релиз\s+назначен\s+на|(?:the\s+)?(?:release|launch|go-live)\s+is(?:\s+(?:scheduled|set|planned))?(?:\s+(?:for|on))?))(?:[^\p{L}]|$)`)
	// factIsDueRe is "X is due …": X is what the deadline is for.
	factIsDueRe = regexp.MustCompile(`^(?i:(?:the|our)\s+)?((?:\p{L}+\s+){0,2}\p{L}+)\s+(?i:is|are)\s+due(?:\s+(?:by|on|before))?(?:[^\p{L}]|$)`)
	// factMovedRe is a deadline moved: the last day said is the new one.
	factMovedRe = regexp.MustCompile(`(?i:moved|pushed|postponed|shifted|перенес\p{L}*|перенёс\p{L}*|сдвинул\p{L}*|перенос\p{L}*)`)
	// factWasRe is a deadline in the past tense.
	factWasRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:was|were|был|была|было)(?:[^\p{L}]|$)`)
	// factButRe joins a negated value to the one meant: "not Friday but
	// Monday", "не в пятницу, а в понедельник".
	factButRe = regexp.MustCompile(`(?i:(?:^|[^\p{L}])(?:but|а|rather|instead)(?:[^\p{L}]|$))`)
	// factQuarterRe is a deadline without a day: "Q3", "Q3 2026", "March",
	// "в марте".
	factQuarterRe = regexp.MustCompile(`^[\s—–:-]*(?i:(?:is|by|in|on|до|в|к)\s+)*((?i:q[1-4](?:\s+\d{4})?|(?:january|february|march|april|may|june|july|august|september|october|november|december)(?:\s+\d{4})?|(?:январ|феврал|март|апрел|ма|июн|июл|август|сентябр|октябр|ноябр|декабр)\p{L}*(?:\s+\d{4})?))(?:[^\p{L}\d]|$)`)
)

// factFillers are the words around a budget's or a deadline's keyword and
// its value that say nothing of what it is for, folded.
var factFillers = factSet(`is are was will be been of for the a an our project project's projects whole total overall entire
	current now currently final set at about around approximately roughly up to max maximum it it's this that by on in
	until before new hard strict firm real official
	проекта проект проекту проектом на по для весь всего весь общий общая наш наша составляет составит равен равна будет
	это теперь сейчас уже около примерно порядка до не более больше максимум в во к итоговый текущий назначен назначили
	стоит у нас окончательный финальный сдачи жёсткий жесткий крайний новый реальный`)

// factPreps open a phrase saying what a budget or deadline is for.
var factPreps = factSet("for of по на для под")

// factGenitiveRe is a Russian noun's genitive ending: "дедлайн отчёта".
var factGenitiveRe = regexp.MustCompile(`(?:а|я|ы|и)$`)

// factVerbRe is a Russian verb's ending: "перенесли" is not what a
// deadline is for.
var factVerbRe = regexp.MustCompile(`(?:ли|ла|ло|ть|ти|ет|ит|ут|ют|ат|ят)$`)

// factAbout reads what a budget or deadline is for, around its keyword:
// in the words between the keyword and the value, a phrase opening with a
// preposition ("for the report", "по отчёту", "на рекламу") or a Russian
// noun in the genitive first ("дедлайн отчёта"); else the word before the
// keyword ("marketing budget", "рекламный бюджет", "для пилота бюджет"). It
// returns the phrase as said, whether it goes before the keyword, and its
// first keyword ("" when the words only fill).
func factAbout(before, between string) (phrase string, ahead bool, key string) {
	clean := func(w string) string { return words.Fold(strings.Trim(w, "—–:-,.;«»\"'")) }
	content := func(w string) bool {
		f := clean(w)
		return f != "" && !factFillers[f] && !factVerbRe.MatchString(f) && !factNegRe.MatchString(" "+f+" ") && len(words.Keywords(f, nil)) > 0
	}
	ws := strings.Fields(between)
	for i, w := range ws {
		if !factPreps[clean(w)] {
			continue
		}
		j := i + 1
		for j < len(ws) && (clean(ws[j]) == "the" || content(ws[j])) {
			j++
		}
		if j > i+1 && content(ws[j-1]) {
			return strings.Join(ws[i:j], " "), false, words.Keywords(clean(ws[j-1]), nil)[0].Word
		}
	}
	if len(ws) > 0 && content(ws[0]) && words.Lang(ws[0]) == "ru" && factGenitiveRe.MatchString(clean(ws[0])) {
		return clean(ws[0]), false, words.Keywords(clean(ws[0]), nil)[0].Word
	}
	prev := strings.Fields(before)
	if len(prev) == 0 || !content(prev[len(prev)-1]) || strings.ContainsAny(prev[len(prev)-1], ",.;:!?") {
		return "", false, ""
	}
	last := strings.Trim(prev[len(prev)-1], "«»\"'")
	phrase = last
	if len(prev) > 1 && factPreps[clean(prev[len(prev)-2])] {
		phrase = words.Fold(prev[len(prev)-2]) + " " + last
	}
	return phrase, true, words.Keywords(clean(last), nil)[0].Word
}

// factAboutText is the text of a budget's or deadline's fact for what it
// is about: "The marketing budget is 40k", "Бюджет на рекламу — 50 тыс.".
func (o offline) factAboutText(noun, nounRU, phrase string, ahead bool, value string) string {
	switch {
	case o.lang == "ru" && ahead && !strings.Contains(phrase, " "):
		return factSentence(phrase + " " + strings.ToLower(nounRU) + " — " + value)
	case o.lang == "ru":
		return factSentence(nounRU + " " + phrase + " — " + value)
	case ahead:
		return factSentence("The " + phrase + " " + noun + " is " + value)
	}
	return factSentence("The " + noun + " " + phrase + " is " + value)
}

// budgetFact applies the budget rule: "budget/бюджет" (a noun: not
// "бюджетный") then, within 50 characters, an amount with its currency,
// unit words and period ("per month"; a bare year skipped, a figure of days
// or people no amount), not negated unless another follows ("not 60k but
// 70k", "не 60, а 70 тысяч"), no threshold ("over 5k"), not in the past
// tense unless changed ("was 2M", but "was cut to 90k"), nor someone else's
// or a former one ("their budget", "last project's budget") →
// project constraint project.budget, 0.8; a budget for something ("the
// marketing budget", "бюджет на рекламу") → project.budget:<its keyword>,
// its text as said.
func (o offline) budgetFact(s string) (Candidate, bool) {
	loc := factBudgRe.FindStringIndex(s)
	if loc == nil {
		return Candidate{}, false
	}
	start := loc[0] + strings.IndexAny(strings.ToLower(s[loc[0]:]), "bб")
	if factOthers(s[:start]) {
		return Candidate{}, false
	}
	rest := s[loc[1]:]
	nums := factAmounts(rest)
	if len(nums) == 0 || utf8.RuneCountInString(rest[:nums[0]]) > 50 || strings.ContainsAny(rest[:nums[0]], "!?") {
		return Candidate{}, false
	}
	at, between := nums[0], rest[:nums[0]]
	if capless := factCapRe.ReplaceAllString(between, " "); factOverRe.MatchString(capless) || factWasRe.MatchString(between) && !factChangeRe.MatchString(between) {
		return Candidate{}, false // "budgets over 5k", "the budget was 2M"
	}
	if factNegated(between) {
		i := slices.IndexFunc(nums[1:], func(n int) bool { return factButRe.MatchString(rest[nums[0]:n]) })
		if i < 0 {
			return Candidate{}, false
		}
		at = nums[1+i]
	}
	v, end := factAmount(rest[at:])
	tail := rest[at+end:]
	if factYearRe.MatchString(v) || factNotMoney(tail) {
		return Candidate{}, false
	}
	if p := factPerRe.FindString(tail); p != "" {
		v += p
	}
	c := Candidate{Scope: ScopeProject, Kind: KindConstraint, Slot: "project.budget", Value: v, Confidence: 0.8,
		Text: factSentence(factPick(o.lang, "The project budget is "+v, "Бюджет проекта — "+v))}
	if phrase, ahead, key := factAbout(s[:start], between); key != "" {
		c.Slot, c.Text = "project.budget:"+key, o.factAboutText("budget", "Бюджет", phrase, ahead, v)
	}
	return c, true
}

// factAmounts returns where the amounts in rest start: a figure, or a
// currency sign and a figure, neither inside a word ("Q3") or another
// figure, nor a percentage ("70%").
func factAmounts(rest string) []int {
	var out []int
	for _, loc := range factNumRe.FindAllStringIndex(rest, -1) {
		r, _ := utf8.DecodeLastRuneInString(rest[:loc[0]])
		if loc[0] > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".,$€£₽", r)) {
			continue
		}
		if _, end := factAmount(rest[loc[0]:]); strings.HasPrefix(strings.TrimSpace(rest[loc[0]+end:]), "%") {
			continue
		}
		out = append(out, loc[0])
	}
	return out
}

// factOthers reports whether the words before a budget's or deadline's
// keyword make it someone else's: "his", "their", "их", "competitor's".
func factOthers(before string) bool {
	ws := strings.Fields(before)
	if len(ws) == 0 {
		return false
	}
	last := words.Fold(strings.ReplaceAll(ws[len(ws)-1], "’", "'"))
	return factOtherRe.MatchString(before) || factFormerRe.MatchString(before) ||
		strings.HasSuffix(last, "'s") && !slices.Contains([]string{"project's", "team's", "company's"}, last)
}

// factNotMoney reports whether the words after an amount make it no money
// ("5 days", "3 people", "10 человек").
func factNotMoney(after string) bool {
	ws := strings.Fields(after)
	if len(ws) == 0 {
		return false
	}
	w := words.Fold(strings.Trim(ws[0], ",.;:!"))
	return words.IsUnit(w) && !factUnitRe.MatchString(w) || slices.Contains([]string{"people", "persons", "person", "человек", "человека", "сотрудников", "дней", "days"}, w)
}

// factAmount reads the amount that s starts with: the number with its
// currency sign and up to three unit words; a bare year ("budget for 2025
// is 3 million") gives way to the next number. It returns the amount and
// where it ends in s.
func factAmount(s string) (string, int) {
	num := factAmtRe.FindString(s)
	v := strings.TrimRight(num, " .,")
	end, units := len(v), 0
	for _, w := range strings.Fields(s[len(num):]) {
		if w = strings.TrimRight(w, ",;!"); units == 3 || !factUnitRe.MatchString(w) {
			break
		}
		end = strings.Index(s[end:], w) + end + len(w)
		v, units = v+" "+w, units+1
	}
	if loc := factNumRe.FindStringIndex(s[len(num):]); units == 0 && loc != nil && factYearRe.MatchString(v) {
		next, e := factAmount(s[len(num)+loc[0]:])
		return next, len(num) + loc[0] + e
	}
	if w := v[strings.LastIndexByte(v, ' ')+1:]; strings.HasSuffix(w, ".") && !strings.Contains(factAbbrev, " "+words.Fold(w[:len(w)-1])+" ") {
		v, end = v[:len(v)-1], end-1
	}
	return v, end
}

// deadlineFact applies the deadline rule: "deadline", "due date", "due
// by/on", "дедлайн", "срок сдачи", "крайний срок", "X is due", a date
// ("the launch date", "дата релиза", "релиз назначен на") or a verb of
// handing over ("ship … by", "be delivered by", "сдаём", "сдать") then,
// within 40
// letters, a day (words.Days) — a relative one resolved from the message's
// time, and then the value is the date, "2026-03-13"; a day with no year
// and no time known stays as said; a relative day with no time known and a
// negated one with no other ("not Friday but Monday") give nothing; in the
// past tense a weekday is the last one; when the deadline moved
// ("перенесли с пятницы на понедельник") the last day counts; "Q3",
// "March", "в марте" stay as said → project constraint project.deadline,
// 0.8, the verb's clause as said with the date for the day; a deadline for
// something ("for the report", "по отчёту", "дедлайн отчёта", "the
// contract deadline", "the report is due", the launch, a verb's object)
// → project.deadline:<its keyword>.
func (o offline) deadlineFact(s string) (Candidate, bool) {
	var before, after, what, subject, verb string
	clause := -1 // a verb's clause starts there
	if m := factIsDueRe.FindStringSubmatchIndex(s); m != nil {
		after, what = s[m[1]:], s[m[2]:m[3]]
	} else if m := factDateRe.FindStringSubmatchIndex(s); m != nil {
		after, subject = s[m[1]:], s[m[2]:m[3]]
		if i := strings.Index(strings.ToLower(subject), " is"); i > 0 {
			subject = subject[:i] // "the launch is (set for)"
		}
	} else if loc := factDueRe.FindStringIndex(s); loc != nil {
		before, after = s[:loc[0]+strings.IndexFunc(s[loc[0]:], unicode.IsLetter)], s[loc[1]:]
	} else if loc := factDueVerbRe.FindStringIndex(s); loc != nil {
		after, clause, verb = s[loc[1]:], strings.LastIndexAny(s[:loc[0]+1], ",;—")+1, s[loc[0]:loc[1]]
	} else {
		return Candidate{}, false
	}
	if factOthers(before) {
		return Candidate{}, false
	}
	when, between, ok := o.deadlineDay(after)
	if !ok {
		return Candidate{}, false
	}
	c := Candidate{Scope: ScopeProject, Kind: KindConstraint, Slot: "project.deadline", Value: when[0], Confidence: 0.8,
		Text: factSentence(factPick(o.lang, "The project deadline is "+when[1], "Дедлайн проекта — "+when[1]))}
	phrase, ahead, key := factAbout(before, between)
	switch kws := words.Keywords(what+" "+subject, []string{"date", "дата"}); {
	case what != "" && len(kws) > 0 && !factFillers[kws[len(kws)-1].Word]:
		phrase, ahead, key = "for the "+what, false, kws[len(kws)-1].Word
	case subject != "" && len(kws) > 0:
		c.Slot, c.Text = "project.deadline:"+kws[len(kws)-1].Word, factSentence(subject+factPick(o.lang, " is ", " — ")+when[1])
		return c, true
	case clause >= 0 && words.Lang(after) == "en" && !factByRe.MatchString(verb+between):
		return Candidate{}, false // "we ship on Monday" plans, "ship by Monday" is a deadline
	case clause >= 0:
		if f := strings.Fields(between); len(f) > 0 && !factFillers[words.Fold(f[0])] && len(words.Keywords(f[0], nil)) > 0 {
			c.Slot = "project.deadline:" + words.Keywords(f[0], nil)[0].Word
		}
		c.Text = factSentence(strings.TrimSpace(s[clause:len(s)-len(after)+len(between)]) + " " + when[1])
		return c, true
	}
	if key != "" {
		c.Slot, c.Text = "project.deadline:"+key, o.factAboutText("deadline", "Дедлайн", phrase, ahead, when[1])
	}
	return c, true
}

// deadlineDay reads the day a deadline's text starts with: its value and
// how it reads ("2026-03-13", "2026-03-13 (Friday)"), and the words before
// it.
func (o offline) deadlineDay(after string) (when [2]string, between string, ok bool) {
	near := func(d words.Day, n int) bool { return utf8.RuneCountInString(after[:d.Start]) <= n }
	days := slices.DeleteFunc(words.Days(after, o.at), func(d words.Day) bool { return !near(d, 60) })
	if len(days) == 0 || !near(days[0], 40) {
		if m := factQuarterRe.FindStringSubmatchIndex(after); m != nil && utf8.RuneCountInString(after[:m[2]]) <= 40 {
			v := after[m[2]:m[3]]
			return [2]string{v, v}, after[:m[2]], true
		}
		return when, "", false
	}
	d, lead := days[0], after[:days[0].Start]
	switch neg := factNegRe.FindStringIndex(lead); {
	case factMovedRe.MatchString(lead):
		d = days[len(days)-1]
	case neg != nil && !factButRe.MatchString(lead[neg[1]:]):
		if len(days) < 2 || !factButRe.MatchString(after[d.End:days[1].Start]) {
			return when, "", false
		}
		d = days[1]
	case d.Relative && factWasRe.MatchString(lead):
		phrase := after[d.Start:d.End]
		if last := words.Days("last "+phrase, o.at); len(last) == 1 && last[0].Start == 0 && last[0].End == len("last "+phrase) {
			d.Date = last[0].Date // "the deadline was Friday": the last one
		}
	}
	if d.Date.IsZero() {
		if d.Relative {
			return when, "", false
		}
		v := after[d.Start:d.End]
		return [2]string{v, v}, lead, true
	}
	iso := d.Date.Format(time.DateOnly)
	return [2]string{iso, iso + " (" + words.WeekdayName(d.Date.Weekday(), o.lang) + ")"}, lead, true
}
