package words_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"yakor/words"
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
		if got := words.Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFields(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"%' OR 1=1 --", []string{"or", "1", "1"}},
		{"Ёлка, GPT-4o и ЛДСП_16", []string{"елка", "gpt", "4o", "и", "лдсп", "16"}},
		{"\xff broken", []string{"broken"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, words.Fields(tt.in)); diff != "" {
			t.Errorf("Fields(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
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
		if got := words.Lang(tt.text); got != tt.want {
			t.Errorf("Lang(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
