package facts

// The guards of Offline: what a sentence must not be for its rules to
// read it — a question, a request, a supposition, a calculation — and the
// words that make a value doubtful where it stands (a negation, a price).

import (
	"regexp"
	"strings"

	"yakor/words"
)

var (
	// factFillerRe are the words a sentence may open with that change
	// nothing it says: "ok,", "so", "hi,", "ну", "кстати", "note that".
	factFillerRe   = regexp.MustCompile(`^(?i:(?:(?:quick\s+)?update\s*:|апдейт\s*:|(?:hi|hello|hey)\s+(?:there|all|everyone|team|folks)|всем\s+привет|привет\s+всем|ok(?:ay)?|so|now|and|also|then|anyway|anyhow|hey|hi|hello|well|alright|great|cool|thanks|thank you|by the way|btw|fyi|note that|note|nb|ну|так|а|и|теперь|тогда|ладно|хорошо|отлично|окей|ок|слушай|смотри|да|привет|здравствуйте|кстати|к сведению|для информации|короче|итак)(?:\s*[,!.:—–-]+\s*|\s+))+`)
	factQuestionRe = regexp.MustCompile(`^(?i:(?:what|who|whom|whose|where|when|why|how|which|do|does|did|is|are|was|were|am|can|could|would|should|will|shall|have|has|any idea|i wonder|wonder|is it true)(?:\s|,|$)|(?:сколько|как(?:ой|ая|ое|ие|ова?|ов|им|ую|ого|ом)?|когда|где|куда|откуда|кто|кому|почему|зачем|разве|неужели|ли|что\s+(?:если|ли|там|с|насчёт|насчет|по)|не\s+подскажешь|не\s+знаешь|интересно|а\s+если|\p{L}+\s+ли)(?:[^\p{L}]|$))`)
	// factRequestRe opens a request: "can you…", "I need you to…", "let's…",
	// "можешь…", "давай…", "нужно…".
	factRequestRe = regexp.MustCompile(`^(?i:(?:please\s+)?(?:can|could|would|will)\s+(?:you|u)|would you mind|i\s+(?:need|want|'d like|would like)\s+you\s+to|help me|let me know|let'?s|lets|можешь|можете|сможешь|сможете|не\s+мог(?:ла|ли)?\s+бы|помоги(?:те)?|давай(?:те)?|нужно|надо|необходимо|требуется|хочу,?\s+чтобы)(?:[^\p{L}]|$)`)
	// factSupposeRe marks a supposition or a doubt: "if", "maybe", "I
	// think", "если", "возможно", "бы".
	factSupposeRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:if|unless|suppose|supposing|assuming|assume|imagine|what if|in case|maybe|perhaps|probably|possibly|might|i guess|i think|i believe|not sure|hopefully|would be|would have|could be|should be|'d be|если|допустим|предположим|представь(?:те)?|в случае|может быть|может|возможно|наверное|наверно|вероятно|вроде|кажется|не уверен\p{L}*|надеюсь|бы|думаю|по-моему)(?:[^\p{L}]|$)`)
	// factCalcRe marks a calculation: figures joined by operators, or the
	// words of a sum.
	factCalcRe = regexp.MustCompile(`\d\s*[×*÷=+]\s*\d|\d\s+[-−–x/]\s+\d|\d\s*[x×]\s*\d|=|(?:^|[^\p{L}])(?i:итого|в сумме|умножить|разделить|плюс|минус|times|plus|minus|multiplied|divided)(?:[^\p{L}]|$)`)
	// factPriceRe marks prices: a figure there is a price, not a version.
	factPriceRe = regexp.MustCompile(`[$€£₽¥]|(?:^|[^\p{L}])(?i:price|prices|priced|cost|costs|руб\p{L}*|р|usd|eur|rub|долл\p{L}*|евро|тыс\p{L}*|цена|цены|цене|ценой|прайс\p{L}*|стоимост\p{L}*|за\s+(?:шт|лист|штуку|метр|м|кг))(?:[^\p{L}]|$)`)
	// factNegRe is a negation: a value after it is not so.
	factNegRe = regexp.MustCompile(`(?:^|[^\p{L}])(?i:not|no|never|don'?t|doesn'?t|didn'?t|isn'?t|aren'?t|wasn'?t|won'?t|no longer|instead|without|except|не|нет|ни|без|вместо|кроме)(?:[^\p{L}]|$)`)
)

// factImperatives are the verbs a request opens with, folded; a Russian
// one also with "-те".
var factImperatives = factSet(`add calculate compute convert count sum total multiply divide subtract round write draft
	make create generate build show give list tell explain describe summarize summarise translate compare check verify
	find search look help fix sort format rewrite rephrase review suggest recommend estimate prepare send design
	implement change remove delete set put read open run try imagine assume suppose pick choose select name
	recall remind guess figure do get split provide fill complete continue finish outline analyze analyse evaluate draw
	print insert replace edit proofread shorten expand simplify optimize refactor debug test order book use keep
	переведи посчитай подсчитай рассчитай сосчитай сложи умножь раздели вычти округли напиши составь сделай создай
	сгенерируй покажи дай выведи перечисли расскажи объясни опиши сравни проверь найди поищи помоги исправь отсортируй
	оформи перепиши предложи посоветуй оцени подготовь отправь пришли скинь добавь убери удали измени поменяй замени
	обнови открой запусти попробуй подскажи скажи глянь посмотри сократи распиши прикинь конвертируй пересчитай
	сформулируй придумай нарисуй вспомни представь прочитай прочти переформулируй резюмируй суммируй выпиши набросай
	разбери проанализируй уточни назови выбери ответь продолжи закончи дополни сформируй вычисли определи укажи
	используй возьми сохрани приведи распредели напомни`)

// factSet is the set of list's words.
func factSet(list string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(list) {
		set[w] = true
	}
	return set
}

// factQuestion reports whether s is a question: it ends in "?" or opens
// with a question word.
func factQuestion(s string) bool {
	return strings.HasSuffix(strings.TrimRight(s, `"'»”) `), "?") || factQuestionRe.MatchString(s)
}

// factRequest reports whether s asks for something: it opens with a
// request ("can you…", "давай…") or an imperative ("convert…",
// "переведи…", "посчитайте…"), maybe after "please"/"пожалуйста".
func factRequest(s string) bool {
	s = strings.TrimLeft(factPleaseRe.ReplaceAllString(s, " "), " ,;:—–-")
	if factRequestRe.MatchString(s) {
		return true
	}
	first, _, _ := strings.Cut(words.Fold(s), " ")
	first = strings.TrimRight(first, ",:;!.")
	return factImperatives[first] || strings.HasSuffix(first, "те") && factImperatives[strings.TrimSuffix(first, "те")]
}

// factIdiomRe are the phrases of factSupposeRe's words that suppose
// nothing: "если что" is "just so you know".
var factIdiomRe = regexp.MustCompile(`(?i:если что)`)

// factSupposed reports whether s supposes or doubts rather than states.
func factSupposed(s string) bool {
	return factSupposeRe.MatchString(factIdiomRe.ReplaceAllString(s, " "))
}

// factCalc reports whether s is a calculation.
func factCalc(s string) bool { return factCalcRe.MatchString(s) }

// factCapRe says "at most", which negates nothing.
var factCapRe = regexp.MustCompile(`(?i:no more than|not more than|not to exceed|не более|не больше|не выше|не превыша\p{L}*|не должен превышать)`)

// factNegated reports whether the text before a value (the words between
// a rule's keyword and the value) negates it; "no more than", "не более"
// do not.
func factNegated(before string) bool {
	return factNegRe.MatchString(factCapRe.ReplaceAllString(before, " "))
}
