package words

import (
	"slices"
	"strings"
)

// Topic names what text is about with no model: a short noun phrase cut
// from the text itself, in its language, word order and case ("прайс-лист
// на ЛДСП", "Price list: oak board", "Доставка в пятницу"). "" when text
// has none ("ok, спасибо", "Посчитай", a bare calculation).
//
// The text's prose is read sentence by sentence (words.Sentences), leaving
// out fenced code, lines that read as code, and links; the first sentence
// that names a topic gives it:
//
//   - a heading ("# Migration plan") or a lead-in before a colon ("Прайс
//     на ЛДСП для кухни: …", "Here is the price list: …") that is one noun
//     phrase, after what comes before it (greetings, requests, stop words)
//     is left out. A lead-in of one or two words takes the first words of
//     what follows it when they name something else ("Price list: oak
//     board", "Deadline: Friday"); a lead-in with no noun ("Remember:")
//     leaves the sentence after it to be read;
//   - else the sentence's first noun phrase: a run of up to three content
//     words, joined by a linker ("на", "для", "of", with determiners after
//     it) to more content words, and by a second one that makes a pair
//     ("TCP and UDP", "from Postgres 14 to Postgres 16"), four content
//     words in all. When the message later repeats the phrase's first words
//     alone, the phrase is cut to them: the rest was said in passing
//     ("Монтаж кухни делает бригада, монтаж стоит 15000 руб." is about
//     "Монтаж").
//
// Content words are those that are not stop words, verbs (known forms,
// Russian verb endings, and English and Russian word order: after a
// subject pronoun, a modal, "to" or "не"; before an object pronoun or
// "the"), greetings and chat words, words of time, single letters or the
// names in exclude (the thread's authors). Numbers end a phrase, except a
// version after a name ("Postgres 16"). A phrase whose words are all weak —
// units after a number, calendar words, total markers ("итого"), generic
// nouns ("вопрос", "advice") — is the topic only when no sentence names
// another.
func Topic(text string, exclude []string) string {
	names := nameStems(exclude)
	sentences := proseSentences(text)
	fallback := ""
	for i, s := range sentences {
		next := ""
		if i+1 < len(sentences) && !sentences[i+1].table {
			next = sentences[i+1].text
		}
		t, weak := sentenceTopic(s, next, sentences[i+1:], names)
		switch {
		case t == "":
		case !weak:
			return t
		case fallback == "":
			fallback = t
		}
	}
	return fallback
}

// sentenceTopic is the topic sentence s names (see Topic), "" when it
// names none, and whether it is weak. next is the sentence after s, which
// a lead-in alone on its line ("Прайс:") introduces; later are the
// sentences after s.
func sentenceTopic(s proseSentence, next string, later []proseSentence, names []string) (string, bool) {
	text := s.text
	lead, rest, ok := text, next, s.heading
	if !ok {
		lead, rest, ok = LeadIn(text)
		if ok && strings.TrimSpace(rest) == "" {
			rest = next
		}
	}
	if ok {
		ru := Lang(text) == "ru"
		toks := scanPhrase(lead)
		classify(toks, names, ru)
		p, pure := leadPhrase(toks)
		switch {
		case genericLead(toks, p):
			text = rest // "Remember: …", "Quick question: …", "Step 1: …"
		case pure:
			return withFollower(lead, toks, p, rest, names, ru)
		}
	}
	toks := scanPhrase(text)
	classify(toks, names, Lang(text) == "ru")
	ps := cut(toks)
	for i, p := range ps {
		if !p.weak {
			return cutToRepeat(toks, p, ps[i+1:], later, names).text(text, toks), false
		}
	}
	if len(ps) > 0 {
		return ps[0].text(text, toks), true
	}
	return "", false
}

// cutToRepeat returns p cut to its first words when a later phrase (one
// of rest, in toks, or of the later sentences) is just those words, by
// stem ("Монтаж кухни …, монтаж …" → "Монтаж"); else p.
func cutToRepeat(toks []ptoken, p phrase, rest []phrase, later []proseSentence, names []string) phrase {
	var head []string
	for k := p.from; k < p.to && toks[k].class == pContent && !toks[k].version; k++ {
		head = append(head, patternStem(toks[k].fold))
	}
	repeats := func(stems []string) bool {
		return len(stems) > 0 && len(stems) < len(head) && slices.Equal(stems, head[:len(stems)])
	}
	for _, q := range rest {
		if stems := phraseStems(toks, q); repeats(stems) {
			return phrase{from: p.from, to: p.from + len(stems), content: len(stems), weak: p.weak}
		}
	}
	for _, s := range later {
		lt := scanPhrase(s.text)
		classify(lt, names, Lang(s.text) == "ru")
		for _, q := range cut(lt) {
			if stems := phraseStems(lt, q); repeats(stems) {
				return phrase{from: p.from, to: p.from + len(stems), content: len(stems), weak: p.weak}
			}
		}
	}
	return p
}

// phraseStems returns the stems of the content words of p (versions left
// out).
func phraseStems(toks []ptoken, p phrase) []string {
	var out []string
	for _, t := range toks[p.from:p.to] {
		if t.class == pContent && !t.version {
			out = append(out, patternStem(t.fold))
		}
	}
	return out
}

// leadPhrase returns the phrase of a lead-in's tokens and whether it is
// the whole lead-in once what comes before its first content word is left
// out.
func leadPhrase(toks []ptoken) (phrase, bool) {
	ps := cut(toks)
	if len(ps) == 0 {
		return phrase{}, false
	}
	last := len(toks)
	for last > 0 && toks[last-1].kind == ptPunct {
		last--
	}
	return ps[0], ps[0].to == last
}

// genericLead reports whether a lead-in, whose first phrase is p, names
// no subject: it has no content word, or only generic ones, or its phrase
// is one run of words that ends in a generic one ("Quick question").
func genericLead(toks []ptoken, p phrase) bool {
	generic := true
	for _, t := range toks {
		if t.class == pContent && !t.version {
			generic = generic && inSet(genericWords, t.fold)
		}
	}
	if generic {
		return true
	}
	last := p.to - 1
	for last > p.from && toks[last].version {
		last--
	}
	head := p.from
	for head < p.to && toks[head].class == pContent {
		head++
	}
	return p.to > p.from && head == p.to && inSet(genericWords, toks[last].fold)
}

// withFollower returns the lead-in phrase p of lead, followed by ": " and
// the first content words of rest when p has one or two content words and
// rest starts with others ("Price list: oak board"); and whether the
// topic is weak.
func withFollower(lead string, toks []ptoken, p phrase, rest string, names []string, ru bool) (string, bool) {
	topic, weak := p.text(lead, toks), p.weak
	if p.content > 2 {
		return topic, weak
	}
	rt := scanPhrase(rest)
	classify(rt, names, ru)
	i := 0
	for i < len(rt) && (rt[i].class == pDet || rt[i].kind == ptPunct && strings.ContainsAny(rt[i].text, "-–—•*")) {
		i++
	}
	if i == len(rt) || rt[i].class != pContent || rt[i].version {
		return topic, weak
	}
	n := 0
	end, w := run(rt, i, maxContent-p.content, &n)
	follower := phrase{from: i, to: end}
	if end < len(rt) && rt[end].class == pContent || sharesStem(topic, follower.text(rest, rt)) {
		return topic, weak
	}
	return topic + ": " + follower.text(rest, rt), weak && w
}

// sharesStem reports whether a and b have a keyword stem in common.
func sharesStem(a, b string) bool {
	kb := Keywords(b, nil)
	for _, k := range Keywords(a, nil) {
		if slices.ContainsFunc(kb, func(o Keyword) bool { return o.Stem == k.Stem }) {
			return true
		}
	}
	return false
}

// LeadIn splits a sentence at its first colon that is not between digits
// ("15:00") into the lead-in and the rest ("Прайс: ЛДСП 3400" → "Прайс",
// " ЛДСП 3400"); ok is false when s has no such colon or nothing before it.
func LeadIn(s string) (lead, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		if i > 0 && isASCIIDigit(s[i-1]) && i+1 < len(s) && isASCIIDigit(s[i+1]) {
			continue
		}
		if strings.TrimSpace(s[:i]) == "" {
			return "", "", false
		}
		return s[:i], s[i+1:], true
	}
	return "", "", false
}

func isASCIIDigit(b byte) bool { return '0' <= b && b <= '9' }

// nameStems returns the stems of the words of the names, as Keywords
// compares them.
func nameStems(names []string) []string {
	var out []string
	for _, name := range names {
		for w := range tokens(Fold(name)) {
			out = append(out, patternStem(w))
		}
	}
	return out
}

// isCalendarWord reports whether a folded word counts years: no key data,
// but no topic either ("в 2019 году").
func isCalendarWord(w string) bool {
	switch w {
	case "год", "году", "года", "годах", "годы", "лет", "year", "years":
		return true
	}
	return false
}
