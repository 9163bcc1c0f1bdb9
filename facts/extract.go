package facts

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

// Fact kinds.
const (
	KindFact, KindPreference, KindConstraint, KindDecision = "fact", "preference", "constraint", "decision"
	KindFinding, KindBlocker, KindCorrection               = "finding", "blocker", "correction"
)

// Fact scopes: this conversation only, the person across their
// conversations, the shared project.
const ScopeChat, ScopeUser, ScopeProject = "chat", "user", "project"

// Candidate is a fact the extractor proposes.
type Candidate struct {
	Scope      string  // chat, user or project
	Kind       string  // one of the Kind constants
	Slot       string  // what it is about ("user.team", "project.version:postgresql"); "" fills no single-valued slot and never supersedes by slot
	Text       string  // the fact as a short sentence in the user's language
	Value      string  // the slot's value as said ("Anna", "500 000 руб."), "" when there is no slot
	Confidence float64 // 0..1
}

// ErrBadAnswer is wrapped by the errors of Parse.
var ErrBadAnswer = errors.New("facts: bad facts answer")

// Bounds of Request and Parse: runes of context and message, the
// answer's tokens, facts (and forget entries) kept, runes of a fact's text.
const factsContextRunes, factsMessageRunes, factsMaxTokens, maxFacts, factTextRunes = 2000, 6000, 600, 10, 500

// Regular expressions of Offline. Keywords are case-insensitive in
// (?i:…) groups; names stay case-sensitive. Go's \b is ASCII-only, so word
// starts are spelled (?:^|[^\p{L}]).
var (
	factFenceRe    = regexp.MustCompile("(?is)^```(?:json)?[ \t]*\n(.*)```$")
	factSplitRe    = regexp.MustCompile(`[.!?;…]+["'»”)]*(?:\s+|$)|\n+`)
	factBulletRe   = regexp.MustCompile(`^(?:[-*•>]+|\d+[.)])\s+`)
	factForgetRe   = regexp.MustCompile(`^(?i:(?:(?:can|could|would|will)\s+you\s+)?(?:please,?\s+)?forget(?:,?\s+please,?)?\s+(?:that|about)\s+|(?:пожалуйста,?\s+)?забудь(?:те)?(?:,?\s*пожалуйста)?(?:\s*,?\s*(?:что|про|об|о)\s+|\s*:\s*))(.+)`)
	factRememberRe = regexp.MustCompile(`^(?i:(?:(?:can|could|would|will)\s+you\s+)?(?:please,?\s+)?(?:remember|keep in mind|don'?t forget|do not forget)(?:\s+that\s+|\s*:\s*)|(?:(?:can|could|would|will)\s+you\s+)?please,?\s+remember\s+|(?:пожалуйста,?\s+)?(?:запомни|учти|не забудь)(?:те)?(?:,?\s*пожалуйста)?(?:\s*,?\s*что\s+|\s*:\s*|\s*[—–-]\s+|,\s*)|пожалуйста,?\s+запомни(?:те)?\s+)(.+)`)
	factQuestionRe = regexp.MustCompile(`^(?i:(?:what|who|whom|whose|where|when|why|how|which|do|does|did|is|are|was|were|am|can|could|would|should|will|shall|have|has)\b|(?:сколько|как(?:ой|ая|ое|ие|ова?|ов)|почему|зачем|разве|неужели)(?:[^\p{L}]|$))`)
	factCorrectRe  = regexp.MustCompile(`^(?i:(actually|correction|на самом деле|поправка))\s*[,:—–-]?\s*(.+)`)
	factFirstRe    = regexp.MustCompile(`(?:^|[^\p{L}])(?i:i|i'm|i've|i'd|i'll|me|my|mine|я|мне|меня|мой|моя|мое|моё|мои|моего|моей|моих|мной)(?:[^\p{L}]|$)`)
	factLikeRe     = regexp.MustCompile(`(?:^|[^\p{L}])(?i:i (?:prefer|like|love|want)|я (?:предпочитаю|люблю|хочу)|мне (?:нравится|удобнее))(?:[^\p{L}]|$)`)

	factNameRe = regexp.MustCompile(`(?:^|[^\p{L}])((?i:my name is|my name's|call me|меня зовут|зовите меня|мо[её] имя))\s+(\p{L}[\p{L}'’-]*)(\s+\p{Lu}[\p{L}'’-]*)?`)
	factTeamRe = regexp.MustCompile(`(?:^|[^\p{L}])(?:(?i:(?:now\s+)?i(?:'m|\s+am)?\s+(?:now\s+|currently\s+)?(?:work|working)\s+(?:on|in|at|with|for)|i(?:'ve|\s+have)?\s+(?:now\s+)?(?:moved|switched|transferred|joined)(?:\s+(?:over\s+)?(?:to|into))?|i(?:'m|\s+am)\s+(?:now\s+)?(?:on|in))\s+(?:(?i:the|a|an)\s+)?(.+)|(?i:(?:теперь\s+)?я(?:\s+(?:сейчас|теперь))?(?:\s+(?:работаю|переш[её]л|перешла|перев[её]лся|перевелась))?)\s+(?i:в|во|на)\s+(.+))`)
	factRoleRe = regexp.MustCompile(`(?:^|[^\p{L}])(?:(?i:i(?:'m|\s+am)\s+(?:now\s+)?an?)\s+((?:[\p{L}+#-]+\s+){0,2}?(?i:developer|engineer|programmer|designer|manager|analyst|tester|architect|scientist|researcher|student|teacher|administrator|admin|lead))|(?i:я)\s+(?:[—–-]\s+)?((?:[\p{L}+#]+-|[a-zA-Z+#]+\s+|\p{L}+(?:ый|ий|ой|ая|яя)\s+)?(?i:разработчи|инженер|программист|дизайнер|менеджер|аналитик|тестировщи|архитектор|студент|тимлид|админ)\p{L}*))(?:[^\p{L}]|$)`)
	factVerRe  = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_.-])(\p{L}[\p{L}\p{N}+#]*(?:[.-][\p{L}\p{N}+#]+)*)\s+(?:(?i:version|версия|версии|версию)\s+)?(v?\d+(?:\.\d+)+)`)
	factBudgRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:budget|бюджет)\p{L}*[^\d$€£₽.!?]{0,40}?([$€£₽]\s?\d|\d)`)
	factNumRe  = regexp.MustCompile(`[$€£₽]\s?\d|\d`)
	factYearRe = regexp.MustCompile(`^(?:19|20)\d\d$`)
	factAmtRe  = regexp.MustCompile(`^[$€£₽]?\s?\d[\d.,]*(?:\s\d{3}(?:[.,]\d+)?)*\p{L}{0,3}`)
	factUnitRe = regexp.MustCompile(`^(?i:k|m|bn|mln|millions?|thousands?|billions?|usd|eur|gbp|rub|dollars?|euros?|r[ou]bles?|тыс\p{L}*|млн|миллион\p{L}*|млрд|миллиард\p{L}*|руб\p{L}*|р|долл\p{L}*|евро|[$€£₽])\.?$`)
	factDueRe  = regexp.MustCompile(`(?:^|[^\p{L}])(?i:deadline|due date|due\s+(?:by|on)|дедлайн|срок сдачи|крайний срок)(?:\s*(?i:is|was|will be|for the project|of the project|проекта|by|on|—|–|-|:|=|до|в|на)(?:\s|$))*\s*(.+)`)
	factDateRe = regexp.MustCompile(`\d|(?:^|[^\p{L}])(?i:today|tomorrow|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|next|end of|week|month|quarter|q[1-4]|eod|сегодня|завтра|понедельник|вторник|сред|четверг|пятниц|суббот|воскресень|январ|феврал|март|апрел|ма[йя]|июн|июл|август|сентябр|октябр|ноябр|декабр|недел|месяц|квартал|конц|следующ)`)
	factCutRe  = regexp.MustCompile(`,\s*[^\d\s]|\s(?i:and|but|so|because|for|и|но|а|потому|для)\s`)
	factPrefRe = regexp.MustCompile(`(?:^|[^\p{L}])((?i:i(?:'d|\s+would)?\s+(?:prefer|rather)|я\s+предпочитаю|я\s+предпоч[её]л\p{L}*\s+бы|мне\s+удобнее))\s+(.+)`)
	// "always/never" asks something of the assistant only when an
	// imperative follows ("always answer…", "never use…"): "Never saw this
	// coming" is a remark.
	factAskRe = regexp.MustCompile(`^(?i:(?:please,?\s+)?(?:always|never)|(?:пожалуйста,?\s+)?(?:всегда|никогда\s+не))\s+` +
		`((?i:answer|reply|respond|use|write|include|show|give|explain|format|add|keep|cite|mention|check|call|put|start|end|sign|speak|list|ask|` +
		`отвечай|используй|пиши|давай|указывай|показывай|объясняй|добавляй|называй|проверяй|спрашивай|говори)\b.*)`)
	factPleaseRe = regexp.MustCompile(`(?i)[,\s]*(?:please|пожалуйста)[,\s]*`)
	factReplRe   = regexp.MustCompile(`^(?i:(?:please,?\s+|пожалуйста,?\s+|from now on,?\s+|отныне,?\s+|теперь\s+|впредь\s+)*(?:(?:always|only|всегда|только)\s+)?(?:answer|reply|respond|speak|отвечай|общайся))\p{L}*(?:[^\p{L}]|$)`)
	factDecRe    = regexp.MustCompile(`(?:^|[^\p{L}])(?i:we(?:'ve|\s+have)?\s+decided(?:\s+(?:to|that|on))?|we(?:'ll|\s+will|'re|\s+are)\s+go(?:ing)?\s+with|let'?s\s+go\s+with|we\s+(?:chose|picked|agreed(?:\s+(?:to|that|on))?)|(?:мы\s+)?(?:решили|договорились|остановились\s+на|выбрали)(?:,?\s*что)?|решено(?:,?\s*что)?)\s*[,:—–-]?\s+(.+)`)
	factBlkRe    = regexp.MustCompile(`(?:^|[^\p{L}])(?i:blocked\s+(?:by|on)|blocker(?:\s+is)?|блокер(?:\s+—)?|упираемся\s+в)\s*[:—–-]?\s+(.+)`)
	factUntRe    = regexp.MustCompile(`(?:^|[^\p{L}])((?i:(?:we|i)\s+(?:can't|cannot|can\s+not)|(?:мы\s+)?не\s+(?:можем|могу|сможем))\s+.+?),?\s+(?i:until|till|пока)\s+(.+)`)
)

// Word tables of Offline, matched on folded words by factStem.
var (
	factTeams = [][4]string{ // stems, English, Russian, Russian "works …"
		{"backend бэкенд бекенд бэкэнд бэк", "backend", "бэкенд", "в бэкенде"}, {"front фронтенд фронтэнд фронт", "frontend", "фронтенд", "во фронтенде"},
		{"fullstack фулстек фулстэк", "fullstack", "фулстек", "в фулстек-разработке"}, {"devops девопс", "DevOps", "DevOps", "в DevOps"},
		{"qa testing тестирован", "QA", "тестирование", "в тестировании"}, {"data данны", "data", "данные", "в команде данных"},
		{"ml машинн", "ML", "ML", "в ML"}, {"mobile мобильн", "mobile", "мобильная разработка", "в мобильной разработке"},
		{"infra platform инфраструктур платформ", "infrastructure", "инфраструктура", "в инфраструктуре"},
		{"design дизайн", "design", "дизайн", "в дизайне"}, {"analytics аналитик", "analytics", "аналитика", "в аналитике"},
	}
	factLangs = [][4]string{ // stems, English, Russian
		{"english англ", "English", "английский"}, {"russian русск", "Russian", "русский"}, {"german немецк", "German", "немецкий"},
		{"french французск", "French", "французский"}, {"spanish испанск", "Spanish", "испанский"},
		{"ukrainian украинск", "Ukrainian", "украинский"}, {"chinese китайск", "Chinese", "китайский"},
	}
	factTopics = [][4]string{ // stems, topic
		{"brief short concise detailed verbose кратк коротк подробн развернут лаконичн", "length"},
		{"markdown json bullet table lists таблиц списк маркдаун", "format"}, {"formal informal casual friendly официальн неформальн", "tone"},
		{"tabs spaces табы табуляц пробел", "indentation"}, {"metric imperial метрическ", "units"}, {"dark light темн светл", "theme"},
	}
	factSkip = " use using make get have always never please используй используйте всегда никогда пожалуйста "
	// factNotProduct are words before a number that name no software.
	factNotProduct = " at to by on in of is as or up до от по на во из за version release build budget deadline step section chapter page item point версия версии релиз бюджет дедлайн срок пункт глава раздел страница шаг "
	// factAbbrev are the abbreviations whose dot ends no sentence.
	factAbbrev = " тыс руб млн млрд долл коп т.е т.к т.д т.п e.g i.e etc vs approx "
)

// factStem reports whether the folded word w matches one of stems: by its
// start for Cyrillic stems and stems of 5 letters or more, else whole.
func factStem(w, stems string) bool {
	for _, st := range strings.Fields(stems) {
		if w == st || (st[0] >= utf8.RuneSelf || len(st) >= 5) && strings.HasPrefix(w, st) {
			return true
		}
	}
	return false
}

// factFind returns the first row of table whose stems (row[0]) match a word
// of text.
func factFind(table [][4]string, text string) ([4]string, bool) {
	for _, w := range strings.FieldsFunc(words.Fold(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		for _, row := range table {
			if factStem(w, row[0]) {
				return row, true
			}
		}
	}
	return [4]string{}, false
}

// Offline returns the candidates in a user's message, and what the
// user asks to forget (nil if nothing). It is deterministic and works per
// sentence (split at . ! ? ; … before a space, and at line breaks); keywords
// match case-insensitively; texts are Russian when words.Lang calls the
// message Russian. A sentence is, the first that applies:
//   - forget: "forget that/about X", "забудь, что/про/о X", "забудь: X",
//     also after "please"/"can you" → X joins forget; no fact is made.
//   - remember: "remember that X", "remember: X", "please remember X",
//     "don't forget that X", "keep in mind that X", "запомни, что X",
//     "запомни: X", "учти, что X" → the rules below on X, or else a fact
//     (a preference if X says "I prefer/like", "я предпочитаю/люблю") of
//     scope user when X speaks in the first person (I/my/я/мой…), else
//     project, slot "". Confidence 0.9 either way.
//   - a question (ends in "?", or opens with what/who/how/is/do/can…,
//     "сколько", "какой", "почему"…) → nothing.
//   - correction: "actually X", "на самом деле X" → the rules on X as kind
//     correction, scope chat unless they set a slot; "correction: X",
//     "поправка: X" else keep X as a chat correction (0.6).
//   - else all rules that match. Name: "my name is", "меня зовут" + a word,
//     "call me", "зовите меня" + a capitalised word, maybe with a surname →
//     user fact user.name, 0.9. Team: "I work on/in X", "now I work on X",
//     "I moved/switched/joined (to) X", "I'm on X", "я работаю/перешёл/
//     перешла в/во/на X", "теперь я в X", X a known team (backend, бэкенд…)
//     or a team/команда/отдел → user fact user.team, 0.8; "I'm a …
//     developer/engineer…", "я …разработчик/инженер…" → user.team if a
//     word before is a known team, else user.role. Version: "<name>
//     [version] v?1.2[.3]", name no stop word nor "version"/"budget"…, the
//     number no date or IP → project fact project.version:<folded name>,
//     0.8. Budget: "budget/бюджет" then an amount with currency and unit
//     words (a bare year skipped) → project constraint project.budget, 0.8.
//     Deadline: "deadline", "due date", "due by/on", "дедлайн", "срок
//     сдачи", "крайний срок" + a phrase with a digit or date word → project
//     constraint project.deadline, 0.8. Preference: "I prefer/I'd rather
//     X", "я предпочитаю X", "(please) always/never X", "всегда X", or
//     a sentence opening with answer/reply/respond/отвечай… and naming a
//     language, length, format or tone → user preference, slot
//     user.preference:language (0.8), else user.preference:<topic>, the
//     topic from a table or X's first keyword (0.6). Decision: "we decided (to) X", "let's go with X", "we chose X",
//     "решили X", "выбрали X" → chat decision, 0.6. Blocker: "we can't X
//     until Y", "не можем X, пока Y", "blocked by X", "blocker: X", "блокер:
//     X" → chat blocker, 0.6.
//
// Anything else ("I'm tired today", "thanks!") gives nothing. A later
// candidate replaces an earlier one of the same slot or text. Only the
// message's first 6000 runes are read, as by Request.
func Offline(message string) (cands []Candidate, forget []string) {
	message = cut(message, factsMessageRunes)
	lang := words.Lang(message)
	for _, s := range factSentences(message) {
		cs, f := sentenceFacts(s, lang)
		if f != "" {
			forget = append(forget, f)
		}
		for _, c := range cs {
			if i := slices.IndexFunc(cands, func(o Candidate) bool { return o.Text == c.Text || c.Slot != "" && o.Slot == c.Slot }); i >= 0 {
				cands[i] = c
			} else {
				cands = append(cands, c)
			}
		}
	}
	return cands, forget
}

// factSentences splits a message into trimmed sentences, terminators kept.
// The dot of an abbreviation ("тыс.", "e.g.") before a lower-case letter or
// a digit ends no sentence.
func factSentences(msg string) []string {
	var out []string
	start := 0
	for _, loc := range append(factSplitRe.FindAllStringIndex(msg, -1), []int{len(msg), len(msg)}) {
		next, _ := utf8.DecodeRuneInString(msg[loc[1]:])
		word := msg[start:loc[0]]
		word = words.Fold(word[strings.LastIndexAny(word, " \t\n(")+1:])
		if loc[0] < len(msg) && msg[loc[0]] == '.' && (unicode.IsLower(next) || unicode.IsDigit(next)) && strings.Contains(factAbbrev, " "+word+" ") {
			continue
		}
		if s := factBulletRe.ReplaceAllString(strings.TrimSpace(msg[start:loc[1]]), ""); s != "" {
			out = append(out, s)
		}
		start = loc[1]
	}
	return out
}

// sentenceFacts applies Offline to one sentence.
func sentenceFacts(s, lang string) ([]Candidate, string) {
	if m := factForgetRe.FindStringSubmatch(s); m != nil {
		return nil, factClean(m[1])
	}
	if m := factRememberRe.FindStringSubmatch(s); m != nil {
		body := factClean(m[1])
		cs := factRules(body, lang)
		if len(cs) == 0 && len(words.Keywords(body, nil)) > 0 {
			c := Candidate{Scope: ScopeProject, Kind: KindFact, Text: factSentence(body)}
			if factLikeRe.MatchString(body) {
				c.Kind = KindPreference
			}
			if factFirstRe.MatchString(body) {
				c.Scope, c.Text = ScopeUser, factSentence(factPick(lang, "In the user's words: ", "Со слов пользователя: ")+body)
			}
			cs = append(cs, c)
		}
		for i := range cs {
			cs[i].Confidence = 0.9
		}
		return cs, ""
	}
	if strings.HasSuffix(strings.TrimRight(s, `"'»”) `), "?") || factQuestionRe.MatchString(s) {
		return nil, ""
	}
	if m := factCorrectRe.FindStringSubmatch(s); m != nil {
		cs := factRules(m[2], lang)
		if explicit := strings.Contains("correction поправка", words.Fold(m[1])); len(cs) == 0 && explicit && len(words.Keywords(m[2], nil)) > 0 {
			cs = append(cs, Candidate{Text: factSentence(m[2]), Confidence: 0.6})
		}
		for i := range cs {
			cs[i].Kind = KindCorrection
			if cs[i].Slot == "" {
				cs[i].Scope = ScopeChat
			}
		}
		return cs, ""
	}
	return factRules(s, lang), ""
}

// factRules applies the rules of Offline that follow "else the rules".
func factRules(s, lang string) []Candidate {
	var cs []Candidate
	add := func(scope, kind, slot, text, value string, conf float64) {
		cs = append(cs, Candidate{Scope: scope, Kind: kind, Slot: slot, Text: factSentence(text), Value: value, Confidence: conf})
	}
	if m := factNameRe.FindStringSubmatch(s); m != nil {
		first, n := utf8.DecodeRuneInString(m[2])
		loose := !strings.HasPrefix(words.Fold(m[1]), "call") && !strings.HasPrefix(words.Fold(m[1]), "зовите")
		if unicode.IsUpper(first) || loose && len(words.Keywords(m[2], nil)) > 0 {
			name := string(unicode.ToUpper(first)) + m[2][n:] + m[3]
			add(ScopeUser, KindFact, "user.name", factPick(lang, "The user's name is "+name, "Пользователя зовут "+name), name, 0.9)
		}
	}
	if c, ok := teamFact(s, lang); ok {
		cs = append(cs, c)
	}
	for _, m := range factVerRe.FindAllStringSubmatchIndex(s, -1) {
		name, ver, after := s[m[2]:m[3]], s[m[4]:m[5]], strings.Fields(s[m[5]:] + " .")[0]
		if next, _ := utf8.DecodeRuneInString(s[m[5]:]); !unicode.IsLetter(next) && !unicode.IsDigit(next) && next != '%' &&
			factProduct(name, ver) && !factUnitRe.MatchString(strings.TrimRight(after, ",;")) {
			add(ScopeProject, KindFact, "project.version:"+words.Fold(name),
				factPick(lang, "The project uses "+name+" "+ver, "В проекте используется "+name+" "+ver), ver, 0.8)
		}
	}
	if m := factBudgRe.FindStringSubmatchIndex(s); m != nil {
		v := factAmount(s[m[2]:])
		add(ScopeProject, KindConstraint, "project.budget", factPick(lang, "The project budget is "+v, "Бюджет проекта — "+v), v, 0.8)
	}
	if m := factDueRe.FindStringSubmatch(s); m != nil {
		when := m[1]
		if loc := factCutRe.FindStringIndex(when); loc != nil {
			when = when[:loc[0]]
		}
		if when = factClean(cut(when, 60)); factDateRe.MatchString(when) {
			add(ScopeProject, KindConstraint, "project.deadline", factPick(lang, "The project deadline is "+when, "Дедлайн проекта — "+when), when, 0.8)
		}
	}
	if c, ok := prefFact(s, lang); ok {
		cs = append(cs, c)
	}
	if m := factDecRe.FindStringSubmatch(s); m != nil && factClean(m[1]) != "" {
		add(ScopeChat, KindDecision, "", factPick(lang, "Decision: ", "Решение: ")+factClean(m[1]), "", 0.6)
	}
	if m := factUntRe.FindStringSubmatch(s); m != nil {
		add(ScopeChat, KindBlocker, "", factClean(m[1])+factPick(lang, " until ", ", пока ")+factClean(m[2]), "", 0.6)
	} else if m := factBlkRe.FindStringSubmatch(s); m != nil && factClean(m[1]) != "" {
		add(ScopeChat, KindBlocker, "", factPick(lang, "Blocked by ", "Блокер: ")+factClean(m[1]), "", 0.6)
	}
	return cs
}

// factAmount reads the amount that s starts with: the number with its
// currency sign and up to three unit words; a bare year ("budget for 2025
// is 3 million") gives way to the next number.
func factAmount(s string) string {
	num := factAmtRe.FindString(s)
	v, units := strings.TrimRight(num, " .,"), 0
	for _, w := range strings.Fields(s[len(num):]) {
		if w = strings.TrimRight(w, ",;!"); units == 3 || !factUnitRe.MatchString(w) {
			break
		}
		v, units = v+" "+w, units+1
	}
	if loc := factNumRe.FindStringIndex(s[len(num):]); units == 0 && loc != nil && factYearRe.MatchString(v) {
		return factAmount(s[len(num)+loc[0]:])
	}
	if w := v[strings.LastIndexByte(v, ' ')+1:]; strings.HasSuffix(w, ".") && !strings.Contains(factAbbrev, " "+words.Fold(w[:len(w)-1])+" ") {
		v = v[:len(v)-1]
	}
	return v
}

// teamFact applies the team and role rules.
func teamFact(s, lang string) (Candidate, bool) {
	c := Candidate{Scope: ScopeUser, Kind: KindFact, Slot: "user.team", Confidence: 0.8}
	known := func(w string) bool {
		t, ok := factFind(factTeams, w)
		c.Value, c.Text = factPick(lang, t[1], t[2]), factPick(lang, "The user works on the "+t[1]+" team.", "Пользователь работает "+t[3]+".")
		return ok
	}
	if m := factTeamRe.FindStringSubmatch(s); m != nil {
		x := m[1] + m[2]
		if i := strings.IndexAny(x, ",;:()"); i >= 0 {
			x = x[:i]
		}
		ws := strings.Fields(x)
		ws = ws[:min(3, len(ws))]
		if len(ws) > 0 && known(ws[0]) {
			return c, true
		}
		for i, w := range ws {
			if f := words.Fold(w); f == "team" || f == "department" || strings.HasPrefix(f, "команд") || strings.HasPrefix(f, "отдел") {
				v := factClean(strings.Join(ws[:i], " "))
				if i == 0 {
					v = factClean(strings.Join(ws[1:], " "))
				}
				c.Value, c.Text = v, factPick(lang, "The user works on the "+v+" team.", "Пользователь работает в команде "+v+".")
				return c, v != ""
			}
		}
	}
	if m := factRoleRe.FindStringSubmatch(s); m != nil {
		role := m[1] + m[2]
		words := strings.FieldsFunc(role, func(r rune) bool { return r == ' ' || r == '-' })
		for _, w := range words[:len(words)-1] {
			if known(w) {
				return c, true
			}
		}
		article := factPick(lang, "a ", "")
		if strings.ContainsRune("aeiouAEIOU", rune(role[0])) {
			article = "an "
		}
		c.Slot, c.Value, c.Text = "user.role", role, factPick(lang, "The user is "+article+role+".", "Пользователь — "+role+".")
		return c, true
	}
	return c, false
}

// prefFact applies the preference rules.
func prefFact(s, lang string) (Candidate, bool) {
	c := Candidate{Scope: ScopeUser, Kind: KindPreference, Confidence: 0.6}
	reply := false // only a reply verb matched: a known topic is needed
	if m := factPrefRe.FindStringSubmatch(s); m != nil {
		c.Value, c.Text = factClean(m[2]), factPick(lang, "The user prefers ", "Пользователь предпочитает ")
		if v := words.Fold(m[1]); strings.Contains(v, "rather") || strings.Contains(v, "удобнее") {
			c.Text = factPick(lang, "The user would rather ", "Пользователю удобнее ")
		}
		c.Text += c.Value + "."
	} else if reply = !factAskRe.MatchString(s); !reply || factReplRe.MatchString(s) {
		c.Value = factClean(factPleaseRe.ReplaceAllString(s, " "))
		c.Text = factPick(lang, "The user asks: \"", "Пользователь просит: «") + c.Value + factPick(lang, "\".", "».")
	} else {
		return c, false
	}
	f := words.Fold(c.Value)
	if l, ok := factFind(factLangs, f); ok {
		c.Slot, c.Value, c.Confidence = "user.preference:language", factPick(lang, l[1], l[2]), 0.8
		c.Text = factPick(lang, "The user prefers answers in "+l[1]+".", "Пользователь предпочитает ответы на "+strings.TrimSuffix(l[2], "ий")+"ом языке.")
	} else if t, ok := factFind(factTopics, f); ok {
		c.Slot = "user.preference:" + t[1]
	} else if reply {
		return c, false // "write a function that sorts numbers"
	} else {
		for _, k := range words.Keywords(c.Value, nil) {
			if !strings.Contains(factSkip, " "+k.Word+" ") {
				c.Slot = "user.preference:" + k.Word
				break
			}
		}
	}
	c.Text = factSentence(c.Text)
	return c, true
}

// factProduct reports whether name before ver names software, and ver is
// no date or IP address.
func factProduct(name, ver string) bool {
	parts := strings.Split(strings.TrimPrefix(ver, "v"), ".")
	if len(parts) >= 4 || len(parts) == 3 && len(parts[2]) == 4 || strings.Contains(factNotProduct, " "+words.Fold(name)+" ") {
		return false
	}
	if first, _ := utf8.DecodeRuneInString(name); utf8.RuneCountInString(name) <= 2 || strings.ContainsAny(name, "+#") {
		return unicode.IsUpper(first)
	}
	return len(words.Keywords(name, nil)) > 0
}

// factPick returns ru for Russian, else en.
func factPick(lang, en, ru string) string {
	if lang == "ru" {
		return ru
	}
	return en
}

// factClean collapses white space and trims quotes and end punctuation.
func factClean(s string) string {
	return strings.Trim(strings.TrimRight(strings.Join(strings.Fields(s), " "), ".,;:!?…"), `"'«»“” `)
}

// factSentence makes s a sentence: capitalised, ending in . ! or ?.
func factSentence(s string) string {
	s = strings.TrimRight(strings.Join(strings.Fields(s), " "), ",;:—– ")
	if s == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(s)
	if s = string(unicode.ToUpper(r)) + s[n:]; !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return s
}

// cut shortens s to n runes.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
