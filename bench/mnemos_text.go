package bench

// Synthetic questions, answers and notes for yakor bench mnemos: six themes
// (prices, VAT, delivery, rent, travel, code) in English and Russian, each
// question made from a template and slot values, so that a paraphrase
// (another template, the same slots) asks the same thing in other words.
// The templates and word lists are data/mnemos.json; mnemosSlots fills
// each theme's slots.

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

type mnemosQ struct {
	topic, tmpl int
	ru          bool
	slots       []any
}

// mnemosAsk is a question recall is measured on.
type mnemosAsk struct {
	kind, text, lang string
}

var mnemosKinds = []string{"paraphrase of a stored question", "new question, stored themes", "unrelated question"}

// mnemosTexts are a theme's templates in one language.
type mnemosTexts struct {
	Questions []string `json:"questions"`
	Answers   []string `json:"answers"`
	Wrong     []string `json:"wrong"`   // wrong answers (L3)
	Reasons   []string `json:"reasons"` // why they were wrong
	Themes    []string `json:"themes"`  // L2 themes
	Titles    []string `json:"titles"`  // L2 titles: %[1]v the theme
}

type mnemosLang struct {
	slots func(r *rand.Rand) []any
	mnemosTexts
}

type mnemosTopic [2]mnemosLang // English, Russian

type mnemosGen struct {
	topics []mnemosTopic
	words  map[string][]string // data/mnemos.json's lists
}

func pickOf[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

//go:embed data/mnemos.json
var mnemosJSON []byte

// mnemosData is data/mnemos.json: a city is its English name, then its
// Russian one, "in", "to" and "from" it; a unit is per one, then of many.
type mnemosData struct {
	Cities   [][5]string         `json:"cities"`
	UnitsEN  [][2]string         `json:"units_en"`
	UnitsRU  [][2]string         `json:"units_ru"`
	VATRates []int               `json:"vat_rates"`
	Lists    map[string][]string `json:"lists"`
	Topics   []struct {
		Name string      `json:"name"`
		EN   mnemosTexts `json:"en"`
		RU   mnemosTexts `json:"ru"`
	} `json:"topics"`
}

// A city's forms in mnemosData.Cities.
const (
	cityEN = iota
	cityRU
	cityRUIn
	cityRUTo
	cityRUFrom
)

// mnemosThemes is the one set of themes; it holds no state.
var mnemosThemes = newMnemosGen()

// newMnemosGen reads data/mnemos.json.
func newMnemosGen() *mnemosGen {
	var d mnemosData
	if err := json.Unmarshal(mnemosJSON, &d); err != nil {
		panic(fmt.Sprintf("bench: data/mnemos.json: %v", err))
	}
	slots := mnemosSlots(&d)
	g := &mnemosGen{words: d.Lists}
	for _, t := range d.Topics {
		fill, ok := slots[t.Name]
		if !ok {
			panic(fmt.Sprintf("bench: data/mnemos.json: no slots for theme %q", t.Name))
		}
		g.topics = append(g.topics, mnemosTopic{{fill[0], t.EN}, {fill[1], t.RU}})
	}
	return g
}

// mnemosSlots are each theme's slot values, English then Russian, which its
// templates name %[1]v, %[2]v…
func mnemosSlots(d *mnemosData) map[string][2]func(r *rand.Rand) []any {
	w, cities := d.Lists, d.Cities
	num := func(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }
	return map[string][2]func(r *rand.Rand) []any{
		"prices": {func(r *rand.Rand) []any {
			u := pickOf(r, d.UnitsEN)
			return []any{pickOf(r, w["items_en"]), u[0], "in " + pickOf(r, cities)[cityEN], num(r, 2, 500), u[1], num(r, 50, 20000), pickOf(r, w["currencies_en"])}
		}, func(r *rand.Rand) []any {
			u := pickOf(r, d.UnitsRU)
			return []any{pickOf(r, w["items_ru"]), u[0], pickOf(r, cities)[cityRUIn], num(r, 2, 500), u[1], num(r, 50, 20000), pickOf(r, w["currencies_ru"])}
		}},
		"vat": {func(r *rand.Rand) []any {
			rate := pickOf(r, d.VATRates)
			amount := num(r, 1000, 500000)
			return []any{pickOf(r, w["items_en"]), rate, pickOf(r, w["vat_buyers_en"]), pickOf(r, w["vat_countries_en"]), amount, amount * rate / (100 + rate), pickOf(r, w["currencies_en"])}
		}, func(r *rand.Rand) []any {
			rate := pickOf(r, d.VATRates)
			amount := num(r, 1000, 500000)
			return []any{pickOf(r, w["items_ru"]), rate, pickOf(r, w["vat_buyers_ru"]), pickOf(r, w["vat_countries_ru"]), amount, amount * rate / (100 + rate), pickOf(r, w["currencies_ru"])}
		}},
		"delivery": {func(r *rand.Rand) []any {
			u := pickOf(r, d.UnitsEN)
			return []any{pickOf(r, w["items_en"]), pickOf(r, cities)[cityEN], num(r, 1, 14), num(r, 2, 500), u[1], num(r, 1000, 90000), pickOf(r, w["currencies_en"])}
		}, func(r *rand.Rand) []any {
			u := pickOf(r, d.UnitsRU)
			return []any{pickOf(r, w["items_ru"]), pickOf(r, cities)[cityRUTo], num(r, 1, 14), num(r, 2, 500), u[1], num(r, 1000, 90000), pickOf(r, w["currencies_ru"])}
		}},
		"rent": {func(r *rand.Rand) []any {
			return []any{num(r, 20, 400), pickOf(r, w["premises_en"]), pickOf(r, w["districts_en"]), "in " + pickOf(r, cities)[cityEN],
				num(r, 200, 9000) * 10, num(r, 3, 36), pickOf(r, w["currencies_en"])}
		}, func(r *rand.Rand) []any {
			return []any{num(r, 20, 400), pickOf(r, w["premises_ru"]), pickOf(r, w["districts_ru"]), pickOf(r, cities)[cityRUIn],
				num(r, 200, 9000) * 10, num(r, 3, 36), pickOf(r, w["currencies_ru"])}
		}},
		"travel": {func(r *rand.Rand) []any {
			a, b := pickOf(r, cities), pickOf(r, cities)
			return []any{a[cityEN], b[cityEN], pickOf(r, w["months_en"]), pickOf(r, w["transport_en"]), num(r, 30, 900) * 10, num(r, 2, 14), pickOf(r, w["currencies_en"])}
		}, func(r *rand.Rand) []any {
			a, b := pickOf(r, cities), pickOf(r, cities)
			return []any{a[cityRUFrom], b[cityRUTo], pickOf(r, w["months_ru"]), pickOf(r, w["transport_ru"]), num(r, 30, 900) * 10, num(r, 2, 14), pickOf(r, w["currencies_ru"])}
		}},
		"code": {func(r *rand.Rand) []any {
			return []any{pickOf(r, w["tasks_en"]), pickOf(r, w["languages"]), pickOf(r, w["libraries"]), pickOf(r, w["errors"])}
		}, func(r *rand.Rand) []any {
			return []any{pickOf(r, w["tasks_ru"]), pickOf(r, w["languages"]), pickOf(r, w["libraries"]), pickOf(r, w["errors"])}
		}},
	}
}

func (g *mnemosGen) lang(q mnemosQ) mnemosLang {
	if q.ru {
		return g.topics[q.topic][1]
	}
	return g.topics[q.topic][0]
}

// question is a new question: a third in Russian.
func (g *mnemosGen) question(r *rand.Rand) mnemosQ {
	q := mnemosQ{topic: r.IntN(len(g.topics)), ru: r.IntN(3) == 0}
	l := g.lang(q)
	q.slots, q.tmpl = l.slots(r), r.IntN(len(l.Questions))
	return q
}

// text words q with its template between a random greeting and close.
func (q mnemosQ) text(r *rand.Rand) string {
	w := mnemosThemes.words
	pre, suf := w["prefixes_en"], w["suffixes_en"]
	if q.ru {
		pre, suf = w["prefixes_ru"], w["suffixes_ru"]
	}
	l := mnemosThemes.lang(q)
	return pickOf(r, pre) + fmt.Sprintf(l.Questions[q.tmpl], q.slots...) + pickOf(r, suf)
}

func (g *mnemosGen) answer(r *rand.Rand, q mnemosQ) string {
	return fmt.Sprintf(pickOf(r, g.lang(q).Answers), q.slots...)
}

func (g *mnemosGen) wrong(r *rand.Rand, q mnemosQ) (answer, reason string) {
	l := g.lang(q)
	i := r.IntN(len(l.Wrong))
	return fmt.Sprintf(l.Wrong[i], q.slots...), fmt.Sprintf(l.Reasons[i], q.slots...)
}

// note is an L2 study note: a theme, an article's title and a note of
// several answers on the theme.
func (g *mnemosGen) note(r *rand.Rand) (topic, title, note string) {
	q := g.question(r)
	l := g.lang(q)
	topic = pickOf(r, l.Themes)
	title = fmt.Sprintf(pickOf(r, l.Titles), topic)
	var b strings.Builder
	for range 3 + r.IntN(4) {
		q.slots = l.slots(r)
		b.WriteString(g.answer(r, q))
		b.WriteByte(' ')
	}
	return topic, title, strings.TrimSpace(b.String())
}

// paraphrase asks q in other words: another template, the same slots.
func (g *mnemosGen) paraphrase(r *rand.Rand, q mnemosQ) mnemosQ {
	n := len(g.lang(q).Questions)
	q.tmpl = (q.tmpl + 1 + r.IntN(n-1)) % n
	return q
}

// ask is the i-th kind of question recall is measured on: a paraphrase of
// a stored question, a new question on the stored themes, or an unrelated
// one.
func (g *mnemosGen) ask(r *rand.Rand, sample []mnemosQ, i int) mnemosAsk {
	kind := i % len(mnemosKinds)
	if kind == 0 && len(sample) == 0 {
		kind = 1
	}
	var q mnemosQ
	switch kind {
	case 0:
		q = g.paraphrase(r, pickOf(r, sample))
	case 1:
		q = g.question(r)
	default:
		ru := r.IntN(3) == 0
		tmpls, words, lang := g.words["unrelated_en"], g.words["unrelated_words_en"], "en"
		if ru {
			tmpls, words, lang = g.words["unrelated_ru"], g.words["unrelated_words_ru"], "ru"
		}
		return mnemosAsk{kind: mnemosKinds[2], lang: lang, text: fmt.Sprintf(pickOf(r, tmpls), pickOf(r, words), pickOf(r, words))}
	}
	lang := "en"
	if q.ru {
		lang = "ru"
	}
	return mnemosAsk{kind: mnemosKinds[kind], text: q.text(r), lang: lang}
}
