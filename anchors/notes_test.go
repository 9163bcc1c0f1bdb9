package anchors

import (
	"testing"
	"time"
)

func TestOfflineNotes(t *testing.T) {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC) // a Monday
	authors := []string{"Caroline", "Melanie"}
	tests := []struct{ text, want string }{
		{"I went to a LGBTQ support group yesterday and it was so powerful.",
			"I went to a LGBTQ support group yesterday and it was so powerful (said on Mon 2023-05-08)"},
		{"We decided to go with Egger for the kitchen", "We decided to go with Egger for the kitchen"},
		{"Мы выбрали Egger для кухни, монтаж в пятницу.", "Мы выбрали Egger для кухни, монтаж в пятницу (сказано в пн 2023-05-08)"},
		{"Hey Caroline, thanks for the kind words about my painting!", ""}, // a greeting
		{"Thanks, Melanie, that means a lot to me and my family.", ""},     // a greeting
		{"When did you go to the support group last week?", ""},            // a question
		{"Oak board 3400 per sheet, birch panel 1250 per sheet.", ""},      // figures are data
		{"That is such a lovely thing to hear, Caroline and Melanie!", ""}, // only the authors' names
		{"ok", ""},
	}
	for _, tt := range tests {
		if got := offlineNotes(tt.text, at, authors); got != tt.want {
			t.Errorf("offlineNotes(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	long := "I finally finished the mural for the community center downtown after three months of painting every single weekend with the kids from the school."
	if got := offlineNotes(long, at, nil); len([]rune(got)) > noteRunes {
		t.Errorf("a long note is %d runes, want at most %d", len([]rune(got)), noteRunes)
	}
}

// TestFitFragmentsKeepsDatedFirst: over the limit, notes without a figure
// or a date go first, the oldest first; then the oldest of the rest.
func TestFitFragmentsKeepsDatedFirst(t *testing.T) {
	frags := []string{"board 3400 руб", "we chose oak", "went to the sawmill (said on Mon 2023-05-08)", "the kids loved it", "total 9 000 руб"}
	tests := []struct {
		max  int
		want string
	}{
		{200, "board 3400 руб; we chose oak; went to the sawmill (said on Mon 2023-05-08); the kids loved it; total 9 000 руб"},
		{96, "board 3400 руб; went to the sawmill (said on Mon 2023-05-08); the kids loved it; total 9 000 руб"},
		{80, "board 3400 руб; went to the sawmill (said on Mon 2023-05-08); total 9 000 руб"},
		{70, "went to the sawmill (said on Mon 2023-05-08); total 9 000 руб"},
	}
	for _, tt := range tests {
		if got := fitFragments(frags, tt.max); got != tt.want {
			t.Errorf("fitFragments(%d) = %q, want %q", tt.max, got, tt.want)
		}
	}
}

// TestDistillNoteKeepsFigure: a note whose lead-in is a figure's label
// does not replace the figure; a newer figure of that label does.
func TestDistillNoteKeepsFigure(t *testing.T) {
	got := Distill("ЛДСП Egger: 3400 руб/лист", "ЛДСП Egger: выбрали его для кухни", MaxData)
	if want := "ЛДСП Egger: 3400 руб/лист; ЛДСП Egger: выбрали его для кухни"; got != want {
		t.Errorf("a note replaced a figure: %q, want %q", got, want)
	}
	if got := Distill(got, "ЛДСП Egger: 3600 руб/лист", MaxData); got != "ЛДСП Egger: выбрали его для кухни; ЛДСП Egger: 3600 руб/лист" {
		t.Errorf("a newer figure: %q", got)
	}
}

// TestWithoutNames: an author's name goes as a whole word only.
func TestWithoutNames(t *testing.T) {
	if got := withoutNames("Mel, welcome to Melbourne, Anna Petrova!", []string{"Mel", "Anna Petrova"}); got != "welcome to Melbourne," {
		t.Errorf("withoutNames = %q", got)
	}
}
