package facts

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"yakor/history"
	"yakor/llm"
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

// Regular expressions of Offline's sentences. Keywords are
// case-insensitive in (?i:…) groups; names stay case-sensitive. Go's \b is
// ASCII-only, so word starts are spelled (?:^|[^\p{L}]).
var (
	factFenceRe    = regexp.MustCompile("(?is)^```(?:json)?[ \t]*\n(.*)```$")
	factSplitRe    = regexp.MustCompile(`[.!?;…]+["'»”)]*(?:\s+|$)|\n+`)
	factBulletRe   = regexp.MustCompile(`^(?:[-*•>]+|\d+[.)])\s+`)
	factForgetRe   = regexp.MustCompile(`^(?i:(?:(?:can|could|would|will)\s+you\s+)?(?:please,?\s+)?forget(?:,?\s+please,?)?\s+(?:that|about)\s+|(?:пожалуйста,?\s+)?забудь(?:те)?(?:,?\s*пожалуйста)?(?:\s*,?\s*(?:что|про|об|о)\s+|\s*:\s*))(.+)`)
	factRememberRe = regexp.MustCompile(`^(?i:(?:(?:can|could|would|will)\s+you\s+)?(?:please,?\s+)?(?:remember|keep in mind|don'?t forget|do not forget|note down|write down)(?:\s+that\s+|\s*[:,]\s*)|(?:(?:can|could|would|will)\s+you\s+)?please,?\s+remember\s+|(?:пожалуйста,?\s+)?(?:запомни|учти|учитывай|не забудь|имей в виду|зафиксируй|запиши)(?:те)?(?:,?\s*пожалуйста)?(?:\s*,?\s*что\s+|\s*:\s*|\s*[—–-]\s+|,\s*)|пожалуйста,?\s+запомни(?:те)?\s+)(.+)`)
	factCorrectRe  = regexp.MustCompile(`^(?i:(actually|correction|на самом деле|поправка|i mean|i meant|sorry|oops|wait|no|нет|точнее|вернее|ой|упс|извини(?:те)?|стоп))(?:\s*[,:—–!-]\s*|\s+)(.+)`)
	// factContrastRe finds a value said against another: "70000, not
	// 60000", "не 60, а 70", "rather than", "instead of".
	factContrastRe = regexp.MustCompile(`(?i:[,;]\s*(?:and\s+)?not\s|(?:^|\s)а\s+не\s|(?:^|\s)не\s+[^,]{1,30},\s*а\s|rather than|instead of|(?:^|\s)not\s+[^,]{1,30}\s+but\s)`)
	factFirstRe    = regexp.MustCompile(`(?:^|[^\p{L}])(?i:i|i'm|i've|i'd|i'll|me|my|mine|я|мне|меня|мой|моя|мое|моё|мои|моего|моей|моих|мной)(?:[^\p{L}]|$)`)
	factLikeRe     = regexp.MustCompile(`(?:^|[^\p{L}])(?i:i (?:prefer|like|love|want)|я (?:предпочитаю|люблю|хочу)|мне (?:нравится|удобнее))(?:[^\p{L}]|$)`)
	factDecRe      = regexp.MustCompile(`(?:^|[^\p{L}])((?i:we(?:'ve|\s+have)?\s+(?:finally\s+)?decided(?:\s+(?:to|that|on|against))?|we(?:'ll|\s+will|'re|\s+are)\s+go(?:ing)?\s+with|we\s+went\s+with|let'?s\s+go\s+with|we\s+(?:chose|picked|agreed(?:\s+(?:to|that|on))?)|the\s+decision\s+(?:is|was)(?:\s+to)?|decision\s*:|we(?:'ve|\s+have)?\s+settled\s+on|it(?:'s|\s+is)\s+(?:decided|settled)|(?:мы\s+)?(?:решили|договорились|остановились\s+на|выбрали|берём|берем|возьмём|возьмем)(?:,?\s*что)?|решено(?:,?\s*что)?|решение\s*:))\s*[,:—–-]?\s+(.+)`)
	// factAskYouRe is a request put as a question: "can you (please) X?",
	// "можешь X?".
	factAskYouRe = regexp.MustCompile(`^(?i:(?:can|could|would|will)\s+you\s+(?:please\s+)?|(?:можешь|можете)\s+(?:пожалуйста\s+)?)(.+)`)
	// factInfRe is a Russian infinitive, maybe negated, opening a text:
	// "решили использовать" is a decision, "решили задачу" is not.
	factInfRe = regexp.MustCompile(`^(?i:не\s+)?\p{L}+(?:ть|ться|ти|тись|чь)(?:[^\p{L}]|$)`)
	factBlkRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:blocked\s+(?:by|on)|blocker(?:\s+is)?|stuck\s+(?:until|on|waiting\s+for)|блокер(?:\s+—)?|упираемся\s+в|застряли\s+(?:на|из-за))\s*[:—–-]?\s+(.+)`)
	factUntRe = regexp.MustCompile(`(?:^|[^\p{L}])((?i:(?:(?:we|i)\s+|^)(?:can't|cannot|can\s+not)|(?:мы\s+)?не\s+(?:можем|могу|сможем))\s+.+?),?\s+(?i:until|till|пока)\s+(.+)`)
	// factAbbrev are the abbreviations whose dot ends no sentence.
	factAbbrev = " тыс руб млн млрд долл коп т.е т.к т.д т.п e.g i.e etc vs approx "
)

// Offline returns the candidates in a user's message said at at (its
// time; zero when unknown: then no relative day is resolved), and what the
// user asks to forget (nil if nothing). It is deterministic and precise
// first: it says nothing rather than something doubtful. It reads the
// message without the offline model's own lines (llm.IsOfflineLine: its
// notice, the earlier messages it quotes), per sentence (split at . ! ?
// ; … before a space, and at line breaks), after leading fillers ("ok,",
// "so", "ну", "кстати"…); keywords match case-insensitively; texts are
// Russian when words.Lang calls the message Russian. A sentence is, the
// first that applies:
//   - forget: "forget that/about X", "забудь, что/про/о X", "забудь: X",
//     also after "please"/"can you" → X joins forget; no fact is made.
//   - remember: "remember that X", "remember: X", "please remember X",
//     "don't forget that X", "keep in mind that X", "note down: X",
//     "запомни, что X", "запомни: X", "учти, что X", "имей в виду, что X",
//     "запиши: X" → the rules below on X, or else (X no question nor
//     request) a fact (a preference if X says "I prefer/like", "я
//     предпочитаю/люблю") of scope user when X speaks in the first person
//     (I/my/я/мой…), else project, slot "". Confidence 0.9 either way.
//   - a question (ends in "?", or opens with what/who/how/is/do/can…,
//     "сколько", "какой", "когда", "почему"…) → nothing, but for a
//     preference asked for ("can you always answer in English?").
//   - correction: "actually X", "на самом деле X", "I mean X", "sorry, X",
//     "no, X", "нет, X", "точнее X"… → the rules on X as kind correction,
//     scope chat unless they set a slot; "correction: X", "поправка: X"
//     else keep X as a chat correction (0.6).
//   - else the rules (rules), then: a slot's value said against another
//     ("70000, not 60000", "не 60, а 70 тысяч") makes it a correction.
//
// A text that names a day relative to when it was said, and is kept as
// said (a remembered fact, a decision, a correction), ends with that day
// (history.SaidOn). Anything else ("I'm tired today", "thanks!") gives
// nothing. A later candidate replaces an earlier one of the same slot or
// text. Only the message's first 6000 runes are read, as by Request.
func Offline(message string, at time.Time) (cands []Candidate, forget []string) {
	message = llm.WithoutOfflineLines(cut(message, factsMessageRunes))
	o := offline{lang: words.Lang(message), at: at}
	for _, s := range factSentences(message) {
		cs, f := o.sentence(factFillerRe.ReplaceAllString(s, ""))
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

// offline is one message's reading by Offline: its language and time.
type offline struct {
	lang string
	at   time.Time
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

// sentence applies Offline to one sentence.
func (o offline) sentence(s string) ([]Candidate, string) {
	if m := factForgetRe.FindStringSubmatch(s); m != nil {
		return nil, factClean(m[1])
	}
	if m := factRememberRe.FindStringSubmatch(s); m != nil {
		return o.remember(factClean(m[1])), ""
	}
	if factQuestion(s) {
		if m := factAskYouRe.FindStringSubmatch(s); m != nil {
			if c, ok := o.prefFact(strings.TrimRight(m[1], "?! ")); ok && c.Slot != "" {
				return []Candidate{c}, "" // "can you please always answer in English?"
			}
		}
		return nil, ""
	}
	if m := factCorrectRe.FindStringSubmatch(s); m != nil {
		cs := o.rules(m[2])
		if explicit := strings.Contains("correction поправка", words.Fold(m[1])); len(cs) == 0 && explicit &&
			len(words.Keywords(m[2], nil)) > 0 && !factQuestion(m[2]) {
			cs = append(cs, Candidate{Text: o.dated(factSentence(m[2])), Confidence: 0.6})
		}
		return factCorrections(cs), ""
	}
	cs := o.rules(s)
	if factContrastRe.MatchString(s) {
		for i := range cs {
			if cs[i].Slot != "" && cs[i].Kind != KindPreference {
				cs[i].Kind = KindCorrection
			}
		}
	}
	return cs, ""
}

// factCorrections makes cs corrections, of scope chat unless they set a
// slot.
func factCorrections(cs []Candidate) []Candidate {
	for i := range cs {
		cs[i].Kind = KindCorrection
		if cs[i].Slot == "" {
			cs[i].Scope = ScopeChat
		}
	}
	return cs
}

// remember reads the body of "remember that X".
func (o offline) remember(body string) []Candidate {
	if factQuestion(body) || factRequest(body) {
		return nil
	}
	cs := o.rules(body)
	if len(cs) == 0 && len(words.Keywords(body, nil)) > 0 {
		c := Candidate{Scope: ScopeProject, Kind: KindFact, Text: o.dated(factSentence(body))}
		if factLikeRe.MatchString(body) {
			c.Kind = KindPreference
		}
		if factFirstRe.MatchString(body) {
			c.Scope, c.Text = ScopeUser, o.dated(factSentence(factPick(o.lang, "In the user's words: ", "Со слов пользователя: ")+body))
		}
		cs = append(cs, c)
	}
	for i := range cs {
		cs[i].Confidence = 0.9
	}
	return cs
}

// rules applies the rules of Offline to a sentence that is no question:
// the preferences (prefFact) always; the others only when the sentence is
// no request (factRequest) unless it states a decision, no supposition
// (factSupposed) and no calculation (factCalc). Name, team and role:
// personFacts. Versions and migrations: versionFacts. Budget: budgetFact.
// Deadline: deadlineFact. Decision: "we decided (to) X", "let's go with
// X", "we chose X", "we've settled on X", "it's decided: X", "the
// decision is X", "решили X" (X an infinitive or "что…"), "выбрали X",
// "договорились X", "берём X", "решено: X" → chat decision, 0.6. Blocker:
// "we can't X until Y", "не можем X, пока Y", "blocked by X", "stuck until
// X", "blocker: X", "блокер: X", "застряли на X" → chat blocker, 0.6.
func (o offline) rules(s string) []Candidate {
	var cs []Candidate
	if c, ok := o.prefFact(s); ok {
		cs = append(cs, c)
	}
	dec := factDecRe.FindStringSubmatch(s)
	if dec != nil && strings.Contains(words.Fold(dec[1]), "решили") && !strings.HasSuffix(dec[1], "что") && !factInfRe.MatchString(dec[2]) &&
		!strings.HasPrefix(strings.TrimSpace(s[strings.Index(s, dec[1])+len(dec[1]):]), ":") {
		dec = nil // "мы решили задачу": solved, not decided ("решили: …" is)
	}
	if factRequest(s) && dec == nil || factSupposed(s) || factCalc(s) {
		return cs
	}
	cs = append(cs, o.personFacts(s)...)
	cs = append(cs, o.versionFacts(s)...)
	if c, ok := o.budgetFact(s); ok {
		cs = append(cs, c)
	}
	if c, ok := o.deadlineFact(s); ok {
		cs = append(cs, c)
	}
	add := func(kind, text string) {
		cs = append(cs, Candidate{Scope: ScopeChat, Kind: kind, Text: o.dated(factSentence(text)), Confidence: 0.6})
	}
	if dec != nil && len(words.Keywords(dec[2], nil)) > 0 {
		add(KindDecision, factPick(o.lang, "Decision: ", "Решение: ")+factClean(dec[2]))
	}
	if m := factUntRe.FindStringSubmatch(s); m != nil {
		add(KindBlocker, factClean(m[1])+factPick(o.lang, " until ", ", пока ")+factClean(m[2]))
	} else if m := factBlkRe.FindStringSubmatch(s); m != nil && factClean(m[1]) != "" {
		add(KindBlocker, factPick(o.lang, "Blocked by ", "Блокер: ")+factClean(m[1]))
	}
	return cs
}

// dated is text, kept as said, ending with the day it was said when it
// names a day relative to it (and that day is known).
func (o offline) dated(text string) string {
	return text + history.SaidOn(text, o.at)
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
