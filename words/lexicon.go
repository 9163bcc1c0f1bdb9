package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The small lexicon that Topic cuts noun phrases with: which folded words
// join a phrase, open it, or end it. English and Russian; no model.

// wordSet makes a set of the space-separated words of list.
func wordSet(list string) map[string]struct{} {
	s := map[string]struct{}{}
	for _, w := range strings.Fields(list) {
		s[w] = struct{}{}
	}
	return s
}

var (
	// linkers join two parts of one noun phrase ("прайс-лист на ЛДСП",
	// "trip to Japan", "тарифы МТС и Билайн").
	linkers = wordSet(`of for on in at to from with about between and into
		на в во для по из с со к ко о об обо от за при без про над под и между у`)

	// determiners may stand between a linker and the words it joins ("cat
	// from the shelter", "письмо для нашего юриста"); a phrase never starts
	// or ends with one.
	determiners = wordSet(`the a an my your our his her their its this these those
		мой моя мое мои моего моей моих моему моим твой твоя твое твои твоего твоей
		наш наша наше наши нашего нашей наших нашему нашим ваш ваша ваше ваши вашего вашей ваших
		свой своя свое свои своего своей своих этот эта это эти этого этой этих этому этим этом
		two three four five six seven eight nine ten eleven twelve twenty
		две четыре пять шесть семь восемь девять десять`)

	// chatWords greet, thank, agree or marvel: never a topic ("ок, супер").
	chatWords = wordSet(`hi greetings bye goodbye cheers wow oh ah lol haha hmm great cool nice awesome
		perfect amazing lovely wonderful excellent brilliant fine sorry congratulations congrats
		guess exactly right indeed deal ages while way re fwd fw ps upd nb
		hilarious funny terrible awful horrible sad crazy weird strange interesting beautiful cute
		sweet fantastic incredible impressive fun good lot
		итак пока благодарю круто класс здорово ого вау ура поздравляю извини извините прости простите
		хм ха ахах норм нормально давай давайте точно верно согласен согласна понял поняла
		насчет слушай слушайте смотри смотрите наверное возможно видимо честно пусть ладненько`)

	// timeWords say when, not what ("доставка завтра", "last weekend").
	timeWords = wordSet(`now today tomorrow yesterday tonight soon later recently lately ago currently
		next last meanwhile
		завтра вчера послезавтра позавчера скоро позже раньше недавно давно утром вечером
		днем ночью снова срочно отдельно заранее`)

	// genericWords name a kind of message, not its subject ("нужен совет"):
	// a phrase of only these is a topic only when there is no other.
	genericWords = wordSet(`question questions help advice idea ideas request favor favour
		step part option stage phase шаг часть пункт вариант этап
		вопрос вопроса вопросы вопросик помощь помощи совет совета советы идея идею идеи
		просьба просьбу дела`)

	// subjects are the personal pronouns a finite verb follows ("I adopted",
	// "мы переехали").
	subjects = wordSet(`i we you they he she it я мы ты вы он она оно они`)

	// objects are pronouns a verb takes ("help me plan", "напиши мне").
	objects = wordSet(`me us him them мне нам тебе вам меня нас тебя вас`)

	// modals take a bare verb after them ("can ship", "хочу заказать").
	modals = wordSet(`can could will would should must may might shall please let lets don didn doesn
		могу можешь можем можете может хочу хочешь хотим хотите хочет хотел хотела хотели
		надо нужно можно пора буду будем будешь будет будут начал начали решил решили
		планирую собираюсь собираемся пытаюсь умею люблю`)

	// questionWords come before a Russian question's verb ("когда приедет").
	questionWords = wordSet(`когда где как почему зачем куда откуда сколько что кто чем чего`)

	// beForms make a continuous tense of an -ing word ("am thinking").
	beForms = wordSet(`am is are was were be been`)

	// doAux asks a question whose last word is its verb ("what does a
	// board cost").
	doAux = wordSet(`do does did`)
)

// verbs are common verb forms that no ending gives away: the request verbs
// of chat ("посчитай", "convert"), irregular English past tenses, English
// verbs in -s (verbs when a figure or a phrase follows: "costs €120",
// "comes on Friday"), the last word of a do-question ("does it cost"), and
// frequent Russian forms.
var (
	requestVerbs = wordSet(`посчитай посчитайте посчитать рассчитай рассчитайте рассчитать
		переведи переведите покажи покажите сделай сделайте помоги помогите дай дайте
		напиши напишите объясни объясните найди найдите проверь проверьте сравни сравните
		запомни запомните запиши запишите сохрани отправь отправьте пришли пришлите скинь
		составь составьте подготовь опиши распиши перечисли назови уточни подбери посоветуй
		порекомендуй предложи оцени добавь убери удали измени исправь поправь посмотри глянь
		сформулируй придумай закажи забронируй купи позвони обнови перенеси отмени запланируй
		создай открой закрой включи выключи поставь установи настрой скачай загрузи сгенерируй
		нарисуй вычисли подсчитай сократи перепиши переформулируй дополни продолжи спроси
		спросите узнай узнайте
		calculate compute convert show make help give write explain find check compare
		send remind suggest recommend describe summarize summarise translate create
		generate draw prepare`)

	pastVerbs = wordSet(`went came took made gave bought sold paid sent brought found saw heard met
		felt kept ran began wrote spoke drove flew ate drank slept sat stood lost spent built
		broke chose forgot understood became grew threw caught taught fought sang swam wore
		fell held led meant lent dealt born gone seen given taken written shown chosen broken
		forgotten eaten driven flown grown thrown spoken stolen worn hidden`)

	sVerbs = wordSet(`costs comes goes takes makes charges works starts begins ends includes weighs
		lasts arrives leaves opens closes sells pays runs sleeps drinks eats lives moves looks
		seems sounds feels becomes stays happens wants likes loves hates helps calls shows
		plays uses tries gives keeps brings sends finishes studies means offers delivers ships
		requires contains depends belongs allows supports fits holds seats hosts serves covers
		reaches grows drops falls rises increases decreases expires renews departs lands returns
		earns saves turns`)

	doVerbs = wordSet(`cost mean take work happen look go come start end begin include weigh last
		matter sell need want like`)

	russianVerbs = wordSet(`стоит стоят стоил стоила стоило стоили приедет приедем едет едем поедем
		идет ждет живет живу берет берем дает придет займет займут привезет подойдет пойдет
		найдет хватит выйдет пишет говорит звонит просит хочет хочу хотим сможет спит сидит
		лежит висит горит болит зовет понял сделал сделала заказал заказала купила написал
		написала прислал прислала посчитал посчитала обещал обещала переехал переехала
		приехал приехала уехал уехала решила забыл забыла видел видела знал знала думал думала
		ждал ждала взял взяла дал дала пришел пришла ушел нашел нашла идем ждем возьмем начнем
		обсудим посмотрим продолжим решим купим пришлю напишу позвоню отправлю куплю закажу
		сделаю посчитаю живу иду еду жду
		возможна возможен возможны готов готова готово готовы должен должна должны должно`)
)

// shortParticiples are the stems of Russian short passive participles of
// chat ("перенесена", "согласованы"): verbs, whatever ending follows.
var shortParticiples = []string{
	"согласован", "подтвержден", "оплачен", "перенесен", "отправлен", "закрыт", "открыт",
	"сделан", "заказан", "доставлен", "получен", "назначен", "отменен", "утвержден",
}

// russianVerbEndings end only verbs, short of the nouns in
// nounsLikeVerbs ("сеть", "детали"): reflexives, the present tense of the
// first conjugation, infinitives and the past plural.
var russianVerbEndings = []string{
	"ться", "тся", "лся", "лась", "лось", "лись", "ешь", "ишь",
	"ает", "яет", "еет", "ует", "ают", "яют", "еют", "уют", "аем", "яем", "еем", "уем",
	"аешь", "аю", "яю", "юсь", "усь", "ся",
	"ать", "ять", "еть", "ить", "уть", "ыть",
	"али", "яли", "или", "ыли", "ули",
	"ил", "ут", "ют", "ят", "ите",
}

// nounsLikeVerbs are the nouns and numerals that end like a verb.
var nounsLikeVerbs = wordSet(`мать кровать печать благодать знать рать пять память зять девять десять
	сеть треть плеть нить путь суть ртуть жуть муть прыть
	детали педали спирали магистрали вертикали горизонтали автомобили стили профили
	правил светил крокодил могил перил стропил
	маршрут институт атрибут минут шут прут кнут хомут лоскут статут редут фут
	уют приют салют валют абсолют парашют
	котят ребят поросят опят утят цыплят
	лимите кредите визите транзите депозите аппетите граните магните
	краю чаю сараю раю
	гусь новую большую серую белую другую первую последнюю`)

// isRussianVerb reports whether a folded Cyrillic word is a verb form by
// its ending or the lexicon.
func isRussianVerb(w string) bool {
	if _, ok := russianVerbs[w]; ok {
		return true
	}
	if _, ok := nounsLikeVerbs[w]; ok || strings.HasSuffix(w, "дцать") || utf8.RuneCountInString(w) < 4 {
		return false
	}
	for _, p := range shortParticiples {
		if strings.HasPrefix(w, p) && utf8.RuneCountInString(w)-utf8.RuneCountInString(p) <= 1 {
			return true
		}
	}
	for _, e := range russianVerbEndings {
		if strings.HasSuffix(w, e) {
			return true
		}
	}
	return false
}

// IsPastParticiple reports whether a folded English word ends in -ed as a
// past tense or participle does ("adopted", not "need" or "hundred").
func IsPastParticiple(w string) bool {
	return len(w) >= 5 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed") &&
		w != "hundred" && w != "kindred" && w != "sacred" && w != "wicked" && w != "naked"
}

// chatPairs are greetings and sayings of two words ("good morning",
// "доброе утро", "простыми словами"): both words are chat.
var chatPairs = map[string]map[string]struct{}{
	"простыми":  wordSet(`словами`),
	"своими":    wordSet(`словами`),
	"спасибо":   wordSet(`большое огромное`),
	"makes":     wordSet(`sense`),
	"good":      wordSet(`morning afternoon evening night day`),
	"добрый":    wordSet(`день вечер`),
	"доброе":    wordSet(`утро`),
	"доброго":   wordSet(`дня утра вечера`),
	"доброй":    wordSet(`ночи`),
	"спокойной": wordSet(`ночи`),
}

// adverbs say how; like -ly words, they end a phrase unless a content
// word follows ("learn Spanish fast", but "online course").
var adverbs = wordSet(`fast hard together alone abroad online overnight instead`)

// lyWords end in -ly but are nouns or adjectives of phrases ("family").
var lyWords = wordSet(`family supply reply assembly italy july anomaly monopoly rally ally belly jelly
	bully lily fly daily weekly monthly yearly early`)

// nounsInYo are nouns that end in -ём or -ёт as Russian verbs do
// ("объём", "расчёт").
var nounsInYo = wordSet(`объём подъём приём проём наём заём съём разъём водоём
	счёт расчёт отчёт учёт полёт самолёт вертолёт перелёт взлёт налёт пулемёт переплёт почёт зачёт
	пересчёт перерасчёт просчёт звездолёт`)

// nounsInO are nouns that end as Russian adverbs do ("метро").
var nounsInO = wordSet(`окно вино кино сено пятно зерно полотно бедро ведро ядро перо метро бюро
	молоко яблоко облако очко ухо`)

// inSet reports whether w is in s.
func inSet(s map[string]struct{}, w string) bool {
	_, ok := s[w]
	return ok
}

// isName reports whether the folded word w is one of the names (stems).
func isName(w string, names []string) bool {
	if len(names) == 0 {
		return false
	}
	st := patternStem(w)
	for _, n := range names {
		if st == n {
			return true
		}
	}
	return false
}

// hyphenedStop reports whether a hyphened word is a stop word
// ("кое-что", "по-моему", "что-то").
func hyphenedStop(w string) bool {
	first, rest, ok := strings.Cut(w, "-")
	if !ok {
		return false
	}
	last := rest[strings.LastIndexByte(rest, '-')+1:]
	switch first {
	case "кое", "по", "из":
		return true // "кое-что", "по-моему", "из-за"
	}
	switch last {
	case "то", "нибудь", "либо", "ка", "таки":
		return true
	}
	return false
}

// isRussianAdjective reports whether a folded Russian word ends as an
// adjective does ("налоговый", "новую").
func isRussianAdjective(w string) bool {
	return hasAnySuffix(w, "ый", "ий", "ой", "ая", "яя", "ое", "ее", "ые", "ие", "ого", "его", "ому", "ему",
		"ым", "им", "ых", "их", "ую", "юю")
}

// hasAnySuffix reports whether w ends with one of the suffixes.
func hasAnySuffix(w string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// isCurrencySign reports whether s is a currency sign.
func isCurrencySign(s string) bool {
	return strings.Contains("$€£¥₽₸₴₹", s) && s != ""
}

// isUpper reports whether s has a letter and all its letters are capitals.
func isUpper(s string) bool {
	return strings.ContainsFunc(s, unicode.IsLetter) && !strings.ContainsFunc(s, unicode.IsLower)
}

// isCyrillic reports whether w starts with a Cyrillic letter.
func isCyrillic(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.Is(unicode.Cyrillic, r)
}
