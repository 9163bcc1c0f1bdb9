package facts

// Offline's rules about the person: name, team, role, preferences.

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

// Role nouns of the role rules, English and Russian stems.
const (
	factRolesEN = `developer|engineer|programmer|designer|manager|analyst|tester|architect|scientist|researcher|student|teacher|administrator|admin|lead|team\s+lead|tech\s+lead|cto|ceo|cfo|coo|founder|co-founder|cofounder|consultant|accountant|lawyer|marketer|product\s+owner|pm|intern|sre|devops|freelancer|director|head\s+of\s+[\p{L}-]+|dev`
	factRolesRU = `разработчи|инженер|программист|дизайнер|менеджер|аналитик|тестировщи|архитектор|студент|тимлид|техлид|админ|руководител|бухгалтер|юрист|маркетолог|продакт|проджект|директор|основател|консультант|преподавател|учител|стажер|стажёр|фрилансер|девопс`
)

var (
	factNameRe = regexp.MustCompile(`(?:^|[^\p{L}])((?i:my name is|my name's|call me|меня зовут|зовите меня|мо[её] имя))(?:\s*[—–:-])?(?:\s+(?i:просто|just))?\s+(\p{L}[\p{L}'’-]*)(\s+\p{Lu}[\p{L}'’-]*)?`)
	// factNameAltRe is "Name's Bob", "меня (, кстати,) Глеб зовут", "I go
	// by Sam": a capitalised name.
	factNameAltRe = regexp.MustCompile(`^(?i:name's|name is)\s+(\p{Lu}\p{Ll}+)|(?:^|[^\p{L}])(?i:меня)(?:,?\s+\p{L}+,)?\s+(\p{Lu}\p{Ll}+)\s+(?i:зовут)|(?:^|[^\p{L}])(?i:i\s+go\s+by)\s+(\p{Lu}\p{Ll}+)`)
	// factIAmRe is "I'm Anna", "Я Анна": a capitalised word alone after
	// "I am" opening a sentence or a clause after a colon or a dash.
	factIAmRe = regexp.MustCompile(`(?:^|[:;—–]\s*)(?:(?i:i'm|i am|я)\s+(\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)?)\s*(?:[,.!]|$|\s(?i:and|и|from|из|—|-)\s)|(?i:this is|это)\s+(\p{Lu}\p{Ll}+)\s*[.!]?$)`)
	// factSurnameRe is "my last name is Petrova", "моя фамилия — Петрова".
	factSurnameRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:my\s+(?:last|family)\s+name\s+is|my\s+surname\s+is|моя\s+фамилия)(?:\s*[—–:-])?\s+(\p{Lu}[\p{L}'’-]+)`)
	factTeamRe    = regexp.MustCompile(`(?:^|[^\p{L}])(?:(?i:(?:now\s+)?i(?:'m|\s+am)?\s+(?:now\s+|currently\s+)?(?:work|working)\s+(?:on|in|at|with|for)|i(?:'ve|\s+have)?\s+(?:now\s+|recently\s+|just\s+|finally\s+|officially\s+)?(?:been\s+)?(?:moved|switched|transferred|joined|assigned)(?:\s+(?:over\s+)?(?:to|into))?|i(?:'m|\s+am)\s+(?:now\s+)?(?:on|in))\s+(?:(?i:the|a|an)\s+)?(.+)|(?i:(?:теперь\s+)?я(?:\s+(?:сейчас|теперь))?(?:\s+(?:работаю|переш[её]л|перешла|перев[её]лся|перевелась))?)\s+(?i:в|во|на)\s+(.+))`)
	// factTeamInRe is a team named beside a first person: "I'm currently an
	// intern on the mobile team", "I've been on the payments team", "I lead
	// the data team", "я тимлид в команде платежей", "меня перевели в отдел
	// продаж".
	factTeamInRe = regexp.MustCompile(`(?:^|[^\p{L}])(?:(?i:i(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+(?:\S+\s+){0,3}?(?:on|in|with|of)\s+the|i\s+(?:manage|lead|run|head)\s+the)\s+((?:\S+\s+){1,2}?(?i:team|department))|(?i:я\s+(?:\S+\s+){0,2}?(?:в|во)\s+(команде\s+\S+(?:\s+\S+)?)|меня\s+перевели\s+(?:в|во|на)\s+(.+)))`)
	factRoleRe   = regexp.MustCompile(`(?:^|[^\p{L}])(?:(?:(?i:i(?:'m|\s+am))\s+\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)?,\s+(?i:an?|the)|(?i:i(?:'m|\s+am)\s+(?:now\s+|currently\s+)?(?:an?|the)|i\s+work\s+as\s+(?:an?|the)|my\s+(?:role|position|job\s+title|title|job)\s+is(?:\s+(?:an?|the))?|^as\s+an?))\s+((?:[\p{L}+#-]+\s+){0,2}?(?i:` + factRolesEN + `)(?:\s+(?i:` + factRolesEN + `))?)|(?:(?i:я)\s+\p{Lu}\p{Ll}+,|(?i:я|мо(?:я|ё|е)\s+(?:роль|должность|позиция))\s*(?:[—–:-]\s*)?)\s((?:[\p{L}+#]+-|[a-zA-Z+#]+\s+|\p{L}+(?:ый|ий|ой|ая|яя)\s+)?(?i:` + factRolesRU + `)\p{L}*(?:\s+\p{Ll}+(?:а|я|ы|и))?))(?:[^\p{L}]|$)`)
	// factWorkAsRe is "работаю старшим разработчиком": a role in the
	// instrumental case.
	factWorkAsRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:работаю|тружусь)\s+(?:(\p{L}+(?:ым|им|ой))\s+)?((?i:` + factRolesRU + `)\p{L}*)(?:[^\p{L}]|$)`)
	// factAdjEndRe is an adjective's ending: "инженерную" is no role.
	factAdjEndRe = regexp.MustCompile(`(?:ую|ая|ый|ий|ой|ое|ые|ых|ого|ому|ым|ими|ной|ная)$`)
	factPrefRe   = regexp.MustCompile(`(?:^|[^\p{L}])((?i:i(?:'d|\s+would)?\s+(?:prefer|rather)|я\s+предпочитаю|я\s+предпоч[её]л\p{L}*\s+бы|мне\s+удобнее))\s*,?\s+(.+)`)
	// factLikesRe is "I like/love/hate X", "мне (не) нравится X", "я (не)
	// люблю X": a preference only when X names a known topic.
	factLikesRe = regexp.MustCompile(`(?:^|[^\p{L}])((?i:i\s+(?:really\s+)?(?:like|love|hate|dislike)|i\s+(?:don'?t|do\s+not)\s+like|мне\s+(?:не\s+)?(?:очень\s+)?нрав\p{L}+|я\s+(?:не\s+)?(?:очень\s+)?люблю|терпеть\s+не\s+могу))\s+(.+)`)
	// "always/never" asks something of the assistant only when an
	// imperative follows ("always answer…", "never use…"): "Never saw this
	// coming" is a remark.
	factAskRe = regexp.MustCompile(`^(?i:(?:please,?\s+)?(?:always|never|don't|do\s+not)|(?:пожалуйста,?\s+)?(?:всегда|никогда\s+не|не))\s+` +
		`((?i:answer|reply|respond|use|write|include|show|give|explain|format|add|keep|cite|mention|check|call|put|start|end|sign|speak|list|ask|` +
		`отвечай|используй|пиши|давай|указывай|показывай|объясняй|добавляй|называй|проверяй|спрашивай|говори)(?:[^\p{L}].*|$))`)
	// factAnswersRe names the assistant's answers: "I like short answers"
	// is about them, "I like long walks" is not.
	factAnswersRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:answers?|repl(?:y|ies)|responses?|explanations?|texts?|ответ\p{L}*|объяснени\p{L}*|текст\p{L}*)(?:[^\p{L}]|$)`)
	factPleaseRe  = regexp.MustCompile(`(?i)[,\s]*(?:please|пожалуйста)[,\s]*`)
	factReplRe    = regexp.MustCompile(`^(?i:(?:please,?\s+|пожалуйста,?\s+|from now on,?\s+|going forward,?\s+|отныне,?\s+|теперь\s+|впредь\s+|дальше\s+)*(?:(?:always|only|всегда|только)\s+)?(?:answer|reply|respond|speak|отвечай|общайся|пиши(?:те)?\s+мне))\p{L}*(?:[^\p{L}]|$)`)
	// factLastingRe makes an English reply instruction lasting, not a
	// one-off ("reply in a table" answers one question).
	factLastingRe = regexp.MustCompile(`(?i:always|only|from now on|going forward|in (?:the )?future|from here on|отныне|впредь|всегда|дальше|теперь|в дальнейшем|отвечай|общайся|пиши)`)
	// factKeepRe makes a request lasting: "from now on, format…",
	// "используй всегда…".
	factKeepRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:always|never|from now on|going forward|from here on|in (?:the )?future|отныне|впредь|всегда|никогда|в дальнейшем)(?:[^\p{L}]|$)`)
)

// Word tables of the person rules, matched on folded words by factStem.
var (
	factTeams = [][4]string{ // stems, English, Russian, Russian "works …"
		{"backend бэкенд бекенд бэкэнд бэк", "backend", "бэкенд", "в бэкенде"}, {"front фронтенд фронтэнд фронт", "frontend", "фронтенд", "во фронтенде"},
		{"fullstack фулстек фулстэк", "fullstack", "фулстек", "в фулстек-разработке"}, {"devops девопс", "DevOps", "DevOps", "в DevOps"},
		{"qa testing тестирован", "QA", "тестирование", "в тестировании"}, {"data данны", "data", "данные", "в команде данных"},
		{"ml машинн", "ML", "ML", "в ML"}, {"mobile мобильн", "mobile", "мобильная разработка", "в мобильной разработке"},
		{"infra инфраструктур", "infrastructure", "инфраструктура", "в инфраструктуре"}, {"platform платформ", "platform", "платформа", "в команде платформы"},
		{"design дизайн", "design", "дизайн", "в дизайне"}, {"analytics аналитик", "analytics", "аналитика", "в аналитике"},
	}
	factLangs = [][4]string{ // stems, English, Russian
		{"english англ", "English", "английский"}, {"russian русск", "Russian", "русский"}, {"german немецк", "German", "немецкий"},
		{"french французск", "French", "французский"}, {"spanish испанск", "Spanish", "испанский"},
		{"ukrainian украинск", "Ukrainian", "украинский"}, {"chinese китайск", "Chinese", "китайский"},
	}
	factTopics = [][4]string{ // stems, topic
		{"brief short shorter concise detailed verbose long кратк коротк короч покороч подробн развернут лаконичн длинн", "length"},
		{"markdown json bullet table lists таблиц списк маркдаун", "format"}, {"formal informal casual friendly официальн неформальн", "tone"},
		{"tabs spaces табы табуляц пробел", "indentation"}, {"metric imperial метрическ", "units"}, {"dark light темн светл", "theme"},
	}
	factSkip = " use using make get have always never please используй используйте всегда никогда пожалуйста "
	// factNotNames are capitalised words after "I'm" that name no one.
	factNotNames = " english russian american german french spanish italian ukrainian chinese japanese british canadian polish indian back fine sorry ready done here "
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

// personFacts applies the name, team and role rules. Name: "my name is",
// "меня зовут" + a word (lower-case only when it ends the sentence or a
// clause, and no verb), "call me", "зовите меня" + a capitalised word,
// maybe with a surname; "I'm Anna", "Я Анна" opening a sentence, "This is
// Anna.", "Это Анна." as the whole sentence; "Name's Bob", "меня Глеб
// зовут", "I go by Sam" → user fact user.name, 0.9. Surname: "my last name
// is X", "моя фамилия X" → user fact user.surname, 0.9. Team: teamFact. Role: factRole.
func (o offline) personFacts(s string) []Candidate {
	var cs []Candidate
	name := ""
	if m := factNameRe.FindStringSubmatchIndex(s); m != nil {
		verb, first := words.Fold(s[m[2]:m[3]]), s[m[4]:m[5]]
		r, _ := utf8.DecodeRuneInString(first)
		rest := strings.TrimLeft(s[m[1]:], " ")
		loose := !strings.HasPrefix(verb, "call") && !strings.HasPrefix(verb, "зовите") &&
			(rest == "" || strings.ContainsAny(rest[:1], ",.!;—–-")) && len(words.Keywords(first, nil)) > 0 &&
			!factInfRe.MatchString(first)
		if unicode.IsUpper(r) || loose {
			name = first
			if m[6] >= 0 {
				name += s[m[6]:m[7]]
			}
		}
	} else if m := factIAmRe.FindStringSubmatch(s); m != nil && !strings.Contains(factNotNames, " "+words.Fold(strings.Fields(m[1] + m[2])[0])+" ") {
		name = m[1] + m[2]
	} else if m := factNameAltRe.FindStringSubmatch(s); m != nil {
		name = strings.Join(m[1:], "")
	}
	if name != "" {
		r, n := utf8.DecodeRuneInString(name)
		name = string(unicode.ToUpper(r)) + name[n:]
		cs = append(cs, Candidate{Scope: ScopeUser, Kind: KindFact, Slot: "user.name", Value: name, Confidence: 0.9,
			Text: factSentence(factPick(o.lang, "The user's name is "+name, "Пользователя зовут "+name))})
	}
	if m := factSurnameRe.FindStringSubmatch(s); m != nil {
		cs = append(cs, Candidate{Scope: ScopeUser, Kind: KindFact, Slot: "user.surname", Value: m[1], Confidence: 0.9,
			Text: factSentence(factPick(o.lang, "The user's last name is "+m[1], "Фамилия пользователя — "+m[1]))})
	}
	if c, ok := o.teamFact(s); ok {
		cs = append(cs, c)
	}
	if role := factRole(s); role != "" {
		article := factPick(o.lang, "a ", "")
		if strings.ContainsRune("aeiouAEIOU", rune(role[0])) && o.lang != "ru" {
			article = "an "
		}
		cs = append(cs, Candidate{Scope: ScopeUser, Kind: KindFact, Slot: "user.role", Value: role, Confidence: 0.8,
			Text: factPick(o.lang, "The user is "+article+role+".", "Пользователь — "+role+".")})
	}
	return cs
}

// teamFact applies the team rule: "I work on/in X", "now I work on X", "I
// moved/switched/joined (to) X", "I'm on X", "я работаю/перешёл/перешла
// в/во/на X", "теперь я в X", and a team beside a first person
// (factTeamInRe), X a known team (backend, бэкенд…) or a team/команда/
// отдел → user fact user.team, 0.8.
func (o offline) teamFact(s string) (Candidate, bool) {
	c := Candidate{Scope: ScopeUser, Kind: KindFact, Slot: "user.team", Confidence: 0.8}
	known := func(w string) bool {
		t, ok := factFind(factTeams, w)
		c.Value, c.Text = factPick(o.lang, t[1], t[2]), factPick(o.lang, "The user works on the "+t[1]+" team.", "Пользователь работает "+t[3]+".")
		return ok
	}
	m := factTeamRe.FindStringSubmatch(s)
	if m == nil {
		m = factTeamInRe.FindStringSubmatch(s)
	}
	if m != nil {
		x := strings.Join(m[1:], "")
		if i := strings.IndexAny(x, ",;:()"); i >= 0 {
			x = x[:i]
		}
		x = strings.TrimRight(x, ".!?… ")
		ws := strings.Fields(x)
		ws = ws[:min(3, len(ws))]
		for i, w := range ws {
			if f := words.Fold(w); f == "team" || f == "department" || strings.HasPrefix(f, "команд") || strings.HasPrefix(f, "отдел") {
				v := factClean(strings.Join(ws[:i], " "))
				if i == 0 {
					v = factClean(strings.Join(ws[1:], " "))
				}
				c.Value, c.Text = v, factPick(o.lang, "The user works on the "+v+" team.", "Пользователь работает в команде "+v+".")
				return c, v != ""
			}
		}
		if len(ws) > 0 && known(ws[0]) {
			return c, true
		}
	}
	return c, false
}

// factRole returns the role s says the user has, nominative, or "": "I'm
// a/the …developer/engineer/manager/CTO…", "I'm Nadia, a …", "I work as a
// …", "my role is …", "я (—) …разработчик/инженер/руководитель…", "моя
// роль — …", "работаю …разработчиком" (made nominative) — with the words
// before it ("backend developer") → user fact user.role, 0.8.
func factRole(s string) string {
	if m := factRoleRe.FindStringSubmatch(s); m != nil {
		role := strings.Join(strings.Fields(m[1]+m[2]), " ")
		if f := words.Fold(role); m[2] != "" && factAdjEndRe.MatchString(f[strings.LastIndexAny(f, " -")+1:]) {
			return ""
		}
		return role
	}
	if m := factWorkAsRe.FindStringSubmatch(s); m != nil {
		noun := m[2]
		for _, e := range [][2]string{{"ем", "ь"}, {"ом", ""}, {"ицей", "ица"}, {"ой", "а"}} {
			if strings.HasSuffix(noun, e[0]) {
				noun = strings.TrimSuffix(noun, e[0]) + e[1]
				break
			}
		}
		adj := m[1]
		for _, e := range [][2]string{{"ым", "ый"}, {"им", "ий"}, {"ой", "ая"}} {
			if strings.HasSuffix(adj, e[0]) {
				adj = strings.TrimSuffix(adj, e[0]) + e[1] + " "
				break
			}
		}
		return adj + noun
	}
	return ""
}

// prefFact applies the preference rules: "I prefer/I'd rather X", "я
// предпочитаю X", "мне удобнее X", "(please) always/never X", "всегда X";
// "I like/love/hate X", "мне (не) нравится X", "я (не) люблю X" when X
// names a known topic; a lasting reply instruction ("from now on reply…",
// "always answer…", "отвечай…", "пиши мне…"), a request about the answers
// ("keep the answers short") or a lasting request ("from now on,
// format…", "используй всегда…") naming a language, length,
// format or tone, or any reply instruction naming a language ("answer in
// English") → user
// preference, slot user.preference:language (0.8), else
// user.preference:<topic>, the topic from a table or X's first keyword
// (0.6). X must hold a keyword.
func (o offline) prefFact(s string) (Candidate, bool) {
	c := Candidate{Scope: ScopeUser, Kind: KindPreference, Confidence: 0.6}
	known := false // a known topic is needed
	if m := factPrefRe.FindStringSubmatch(s); m != nil {
		c.Value, c.Text = factClean(m[2]), factPick(o.lang, "The user prefers ", "Пользователь предпочитает ")
		if v := words.Fold(m[1]); strings.Contains(v, "rather") || strings.Contains(v, "удобнее") {
			c.Text = factPick(o.lang, "The user would rather ", "Пользователю удобнее ")
		}
		c.Text += c.Value + "."
	} else if m := factLikesRe.FindStringSubmatch(s); m != nil {
		c.Value, c.Text, known = factClean(m[2]), factPick(o.lang, "In the user's words: ", "Со слов пользователя: ")+factClean(m[0])+".", true
	} else if ask := factAskRe.MatchString(s); ask || factReplRe.MatchString(s) || factRequest(s) && factAnswersRe.MatchString(s) ||
		factKeepRe.MatchString(s) && factRequest(factKeepRe.ReplaceAllString(s, " ")) {
		known = !ask
		c.Value = factClean(factPleaseRe.ReplaceAllString(s, " "))
		c.Text = factPick(o.lang, "The user asks: \"", "Пользователь просит: «") + c.Value + factPick(o.lang, "\".", "».")
	} else {
		return c, false
	}
	f := words.Fold(c.Value)
	if l, ok := factFind(factLangs, f); ok {
		c.Slot, c.Value, c.Confidence = "user.preference:language", factPick(o.lang, l[1], l[2]), 0.8
		c.Text = factPick(o.lang, "The user prefers answers in "+l[1]+".", "Пользователь предпочитает ответы на "+strings.TrimSuffix(l[2], "ий")+"ом языке.")
	} else if t, ok := factFind(factTopics, f); ok && (!known || factLastingRe.MatchString(s) || factKeepRe.MatchString(s) || factRequest(s) ||
		factLikesRe.MatchString(s) && (t[1] != "length" || factAnswersRe.MatchString(f))) {
		c.Slot = "user.preference:" + t[1]
	} else if known {
		return c, false // "write a function that sorts numbers", "I love it"
	} else {
		for _, k := range words.Keywords(c.Value, nil) {
			if !strings.Contains(factSkip, " "+k.Word+" ") {
				c.Slot = "user.preference:" + k.Word
				break
			}
		}
		if c.Slot == "" {
			return c, false // "I'd rather not", "я предпочитаю это"
		}
	}
	c.Text = factSentence(c.Text)
	return c, true
}
