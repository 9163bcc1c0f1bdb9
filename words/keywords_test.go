package words_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"yakor/words"
)

func TestKeywords(t *testing.T) {
	type kw = words.Keyword
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
			got := words.Keywords(tt.text, tt.exclude)
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
		kws := words.Keywords(tt.query, nil)
		if len(kws) != 1 {
			t.Fatalf("Keywords(%q) = %v, want one keyword", tt.query, kws)
		}
		for _, form := range tt.forms {
			if !strings.Contains(words.Fold(form), kws[0].Stem) {
				t.Errorf("stem %q of %q does not match %q", kws[0].Stem, tt.query, form)
			}
		}
	}
}

func TestKeywordsCap(t *testing.T) {
	names := []string{
		"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
		"hotel", "india", "juliet", "kilo", "lima", "mike", "november",
	}
	got := words.Keywords(strings.Join(names, " "), nil)
	var gotWords []string
	for _, k := range got {
		gotWords = append(gotWords, k.Word)
	}
	if diff := cmp.Diff(names[:12], gotWords); diff != "" {
		t.Errorf("Keywords kept the wrong words (-want +got):\n%s", diff)
	}

	// Stop words and duplicates do not count against the cap.
	text := "the what alpha alphas " + strings.Join(names, " ")
	if got := words.Keywords(text, nil); len(got) != 12 || got[11].Word != "lima" {
		t.Errorf("Keywords(%q) = %v, want 12 keywords ending in lima", text, got)
	}
}

// FuzzKeywords checks the invariants callers rely on (search builds its
// SQL statements' arguments from them): at most 12 keywords, letters and
// digits only, each word found in the folded text and not a word of an
// excluded name, each stem a substring of its word used once.
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
		kws := words.Keywords(text, []string{name})
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
			if words.Fold(k.Word) != k.Word {
				t.Errorf("word %q is not folded", k.Word)
			}
			for _, r := range k.Word {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					t.Errorf("word %q holds %q", k.Word, r)
				}
			}
			if !strings.Contains(words.Fold(text), k.Word) {
				t.Errorf("word %q is not in the folded text %q", k.Word, words.Fold(text))
			}
			if slices.Contains(strings.FieldsFunc(words.Fold(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), k.Word) {
				t.Errorf("word %q is a word of the excluded name %q", k.Word, name)
			}
		}
	})
}

func BenchmarkKeywords(b *testing.B) {
	// About 200 characters, mixed Russian and English.
	query := "Сколько стоил прайс на ЛДСП в прошлом месяце, и когда Caroline " +
		"обещала прислать новые цены? What did we decide about the LGBTQ " +
		"support group meeting and the 3400 rubles?"
	exclude := []string{"Caroline", "Мелани"}
	b.ReportAllocs()
	for b.Loop() {
		words.Keywords(query, exclude)
	}
}

func TestNamed(t *testing.T) {
	names := []string{"Anna", "Boris Petrov", "Мария"}
	for _, c := range []struct {
		text string
		want []string
	}{
		{"What does Anna think?", []string{"Anna"}},
		{"What did Anna's kids like?", []string{"Anna"}},
		{"Did Petrov agree with anna?", []string{"Anna", "Boris Petrov"}},
		{"Что ответила Марии команда?", []string{"Мария"}},
		{"What did Annabel say?", nil},
		{"What did the team say?", nil},
	} {
		if got := words.Named(c.text, names); !slices.Equal(got, c.want) {
			t.Errorf("Named(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
