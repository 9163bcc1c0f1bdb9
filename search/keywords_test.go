package search_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"yakor/search"
)

func TestFold(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"already folded", "already folded"},
		{"Hello WORLD", "hello world"},
		{"Ёлка", "елка"},
		{"ЕЩЁ ещё", "еще еще"},
		{"ЛДСП", "лдсп"},
		{"Straße ÄÖÜ", "straße äöü"},
		{"%' OR 1=1 --", "%' or 1=1 --"},
	}
	for _, tt := range tests {
		if got := search.Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeywords(t *testing.T) {
	type kw = search.Keyword
	tests := []struct {
		name    string
		text    string
		exclude []string
		want    []kw
	}{
		{"Empty", "", nil, nil},
		{
			"RussianQuestion", "Сколько стоил прайс на ЛДСП?", nil,
			[]kw{{"стоил", "сто"}, {"прайс", "прайс"}, {"лдсп", "лдсп"}},
		},
		{
			"EnglishQuestionWithSpeaker", "When did Caroline go to the LGBTQ support group?",
			[]string{"caroline"},
			[]kw{{"lgbtq", "lgbtq"}, {"support", "support"}, {"group", "group"}},
		},
		{
			"SpeakerKeptWithoutExclude", "When did Caroline go?", nil,
			[]kw{{"caroline", "carolin"}},
		},
		{
			"ExcludeIsCaseInsensitive", "CAROLINE and caroline's group",
			[]string{"Caroline"},
			[]kw{{"group", "group"}},
		},
		{
			"ExcludeFullName", "Caroline Smith met Melanie",
			[]string{"Caroline Smith", "Melanie"},
			[]kw{{"met", "met"}},
		},
		{
			"ExcludeInflectedRussianName", "Что Каролину спросили про Каролины цены?",
			[]string{"Каролина"},
			[]kw{{"спросили", "спрос"}, {"цены", "цен"}},
		},
		{"StopWordsEnglish", "What did the one say, and when?", nil, nil},
		{"StopWordsRussian", "Когда это было? Скажи, пожалуйста, что ещё / еще", nil, nil},
		{"Yo", "Ёлка", nil, []kw{{"елка", "елк"}}},
		{"Abbreviation", "ЛДСП", nil, []kw{{"лдсп", "лдсп"}}},
		{"Quotes", "«прайс», \"price\"!", nil, []kw{{"прайс", "прайс"}, {"price", "price"}}},
		{"DedupByStem", "price prices priced", nil, []kw{{"price", "price"}}},
		{"DedupRussian", "цены цена ценой", nil, []kw{{"цены", "цен"}}},
		{"FirstAppearanceOrder", "zebra apple zebras mango apples", nil,
			[]kw{{"zebra", "zebra"}, {"apple", "appl"}, {"mango", "mango"}}},
		{"Numbers", "3400 rubles, 5 boxes, 85 kg", nil,
			[]kw{{"3400", "3400"}, {"rubles", "rubl"}, {"boxes", "box"}, {"85", "85"}}},
		{"HyphenSplits", "GPT-4o", nil, []kw{{"gpt", "gpt"}, {"4o", "4o"}}},
		{"ShortWordsDropped", "a an ox go в на", nil, nil},
		{"Running", "running", nil, []kw{{"running", "run"}}},
		// The stem is cut to what it shares with the word: Snowball gives
		// "happi", "studi" and "hope", none a substring of the word.
		{"StemIsSubstring", "happy study studies hoping", nil,
			[]kw{{"happy", "happ"}, {"study", "stud"}, {"hoping", "hop"}}},
		{"ShortStemFallsBackToWord", "dying", nil, []kw{{"dying", "dying"}}},
		{"MixedScriptsUnstemmed", "Cтолы", nil, []kw{{"cтолы", "cтолы"}}}, // Latin C
		{"LettersAndDigitsUnstemmed", "iphone15s", nil, []kw{{"iphone15s", "iphone15s"}}},
		{"SQLInjection", "%' OR 1=1 --", nil, nil},
		{"LikeWildcards", "_%_", nil, nil},
		{"Backslashes", `\\x\\ 100%_discount`, nil, []kw{{"100", "100"}, {"discount", "discount"}}},
		{"MixedLanguages", "Сколько стоил price list на ЛДСП?", nil,
			[]kw{{"стоил", "сто"}, {"price", "price"}, {"list", "list"}, {"лдсп", "лдсп"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := search.Keywords(tt.text, tt.exclude)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Keywords(%q, %q) mismatch (-want +got):\n%s", tt.text, tt.exclude, diff)
			}
		})
	}
}

// TestKeywordsStemMatchesInflections checks that the stem of a query word,
// used as a %stem% pattern, finds other forms of the word in folded text.
func TestKeywordsStemMatchesInflections(t *testing.T) {
	tests := []struct {
		query string
		forms []string
	}{
		{"прайс", []string{"прайса", "прайсе", "Прайсом"}},
		{"цены", []string{"цена", "цену", "ценой"}},
		{"цена", []string{"цены", "цене"}},
		{"ёлки", []string{"Ёлка", "елку"}},
		{"prices", []string{"price", "priced", "PRICES"}},
		{"study", []string{"studies", "studied", "studying"}},
		{"hoping", []string{"hope", "hoped", "hopes"}},
	}
	for _, tt := range tests {
		kws := search.Keywords(tt.query, nil)
		if len(kws) != 1 {
			t.Fatalf("Keywords(%q) = %v, want one keyword", tt.query, kws)
		}
		for _, form := range tt.forms {
			if !strings.Contains(search.Fold(form), kws[0].Stem) {
				t.Errorf("stem %q of %q does not match %q", kws[0].Stem, tt.query, form)
			}
		}
	}
}

func TestKeywordsCap(t *testing.T) {
	words := []string{
		"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
		"hotel", "india", "juliet", "kilo", "lima", "mike", "november",
	}
	got := search.Keywords(strings.Join(words, " "), nil)
	var gotWords []string
	for _, k := range got {
		gotWords = append(gotWords, k.Word)
	}
	if diff := cmp.Diff(words[:12], gotWords); diff != "" {
		t.Errorf("Keywords kept the wrong words (-want +got):\n%s", diff)
	}

	// Stop words and duplicates do not count against the cap.
	text := "the what alpha alphas " + strings.Join(words, " ")
	if got := search.Keywords(text, nil); len(got) != 12 || got[11].Word != "lima" {
		t.Errorf("Keywords(%q) = %v, want 12 keywords ending in lima", text, got)
	}
}

// FuzzKeywords checks the invariants the SQL statements' arguments rely
// on: at most 12 keywords, letters and digits only, each word found in
// the folded text and not a word of an excluded name, each stem a
// substring of its word used once; the ILIKE patterns are the stems
// between two % with no other wildcard, and the full-text query is the
// words joined by " or ".
func FuzzKeywords(f *testing.F) {
	for _, s := range []string{
		"Сколько стоил прайс на ЛДСП?",
		"When did Caroline go to the LGBTQ support group?",
		"%' OR 1=1 --", "_%_", `a\b\\c`, "GPT-4o", "Ёлка ЁЛКИ",
		"İstanbul ǅemal ﬁle", "\xff\xfe broken utf8 \xc3",
	} {
		f.Add(s, "Caroline")
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		kws := search.Keywords(text, []string{name})
		if len(kws) > 12 {
			t.Errorf("%d keywords, want at most 12", len(kws))
		}
		seen := map[string]bool{}
		for _, k := range kws {
			if seen[k.Stem] {
				t.Errorf("stem %q repeated", k.Stem)
			}
			seen[k.Stem] = true
			if !strings.Contains(k.Word, k.Stem) || k.Stem == "" {
				t.Errorf("stem %q is not a substring of %q", k.Stem, k.Word)
			}
			if search.Fold(k.Word) != k.Word {
				t.Errorf("word %q is not folded", k.Word)
			}
			for _, r := range k.Word {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					t.Errorf("word %q holds %q", k.Word, r)
				}
			}
			if !strings.Contains(search.Fold(text), k.Word) {
				t.Errorf("word %q is not in the folded text %q", k.Word, search.Fold(text))
			}
			if slices.Contains(strings.FieldsFunc(search.Fold(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), k.Word) {
				t.Errorf("word %q is a word of the excluded name %q", k.Word, name)
			}
		}
		pats := search.Patterns(kws)
		words := make([]string, len(kws))
		for i, k := range kws {
			words[i] = k.Word
			inner, ok := strings.CutPrefix(pats[i], "%")
			inner, ok2 := strings.CutSuffix(inner, "%")
			if !ok || !ok2 || inner != k.Stem || strings.ContainsAny(inner, `%_\`) {
				t.Errorf("pattern %q for the stem %q", pats[i], k.Stem)
			}
		}
		if q := search.TSQuery(kws); q != strings.Join(words, " or ") {
			t.Errorf("full-text query %q for the words %q", q, words)
		}
	})
}

func TestLang(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"", "en"},
		{"123 !?", "en"},
		{"Сколько стоил прайс на ЛДСП?", "ru"},
		{"When did Caroline go to the LGBTQ support group?", "en"},
		{"Сколько стоит iPhone?", "ru"},            // 12 Cyrillic, 6 Latin
		{"Привет, how are you doing today?", "en"}, // 6 Cyrillic, 19 Latin
		{"ёжик", "ru"},    // ё counts
		{"abc где", "en"}, // a tie is "en"
		{"Ünïcödé façade naïve, and ещё", "en"},  // accented Latin counts
		{"Это ЛДСП, not MDF, прайс в PDF", "ru"}, // 13 Cyrillic, 9 Latin
	}
	for _, tt := range tests {
		if got := search.Lang(tt.text); got != tt.want {
			t.Errorf("Lang(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func BenchmarkKeywords(b *testing.B) {
	// About 200 characters, mixed Russian and English.
	query := "Сколько стоил прайс на ЛДСП в прошлом месяце, и когда Caroline " +
		"обещала прислать новые цены? What did we decide about the LGBTQ " +
		"support group meeting and the 3400 rubles?"
	exclude := []string{"Caroline", "Мелани"}
	b.ReportAllocs()
	for b.Loop() {
		search.Keywords(query, exclude)
	}
}
