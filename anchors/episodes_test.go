package anchors

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFoldOld: a run with many anchors folds the oldest into episodes and
// joins episodes beyond the cap; the current anchor and the newest stay
// whole, no anchor is lost (each is live or absorbed by a live one), the
// oldest topic is still named, and each folded anchor's data is checked
// at the write.
func TestFoldOld(t *testing.T) {
	day := time.Date(2023, 5, 8, 10, 0, 0, 0, time.UTC)
	var as []Anchor
	read := map[int64]bool{}
	for i := range 40 {
		id := int64(i + 1)
		as = append(as, Anchor{ID: id, Topic: fmt.Sprintf("topic number %d of the talk", id), Data: fmt.Sprintf("price %d: %d руб", id, 100*id),
			CharPos: 1000 * id, FirstAt: day.AddDate(0, 0, i), LastAt: day.AddDate(0, 0, i).Add(time.Hour)})
		read[id] = true
	}
	const current = 3 // the dialogue returned to an old topic
	r := run{cfg: Config{KeepRecent: 5, MaxEpisodes: 3}.withDefaults(), anchors: slices.Clone(as), currentID: current,
		loaded: read, read: map[int64]string{}, dataOf: func(id int64) (string, error) { return "", fmt.Errorf("anchor %d read", id) }}
	r.firstPending = 100
	if err := r.foldOld(); err != nil {
		t.Fatal(err)
	}
	var plain, episodes []Anchor
	covered := map[int64]bool{}
	for _, a := range r.anchors {
		covered[a.ID] = true
		for _, id := range a.Absorbed {
			covered[id] = true
		}
		if a.Episode {
			episodes = append(episodes, a)
		} else {
			plain = append(plain, a)
		}
	}
	if len(episodes) > 3 || len(episodes) == 0 {
		t.Errorf("%d episodes, want 1 to 3", len(episodes))
	}
	if len(plain) >= 5+episodeGroup || find(plain, current) == nil || find(plain, 40) == nil {
		t.Errorf("whole anchors %v: want fewer than %d, the current one and the newest among them", ids(plain), 5+episodeGroup)
	}
	for _, a := range as {
		if !covered[a.ID] {
			t.Errorf("anchor %d is neither live nor absorbed", a.ID)
		}
	}
	first := r.byPosition(func(a Anchor) bool { return a.Episode })[0]
	if !strings.HasPrefix(first.Topic, "topic number 1 of the talk") || !first.FirstAt.Equal(day) {
		t.Errorf("oldest episode %q from %v: want it to name the first topic, from %v", first.Topic, first.FirstAt, day)
	}
	for _, e := range episodes {
		if n := len([]rune(e.Topic)); n > EpisodeTopicMax || len([]rune(e.Data)) > EpisodeDataMax {
			t.Errorf("episode %d: topic %d runes, data %q", e.ID, n, e.Data)
		}
	}
	if len(r.read) == 0 || len(r.folds) == 0 {
		t.Errorf("folds %d, data checked %d: the write would check nothing", len(r.folds), len(r.read))
	}
}

func ids(as []Anchor) []int64 {
	out := make([]int64, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}

func TestEpisodePhrase(t *testing.T) {
	got := episodePhrase([]string{"Mel", "LGBTQ support group", "lgbtq support groups", "painting", "adoption agencies", "—"}, 120)
	if want := "Mel, LGBTQ support group, painting, adoption agencies"; got != want {
		t.Errorf("phrase %q, want %q", got, want)
	}
	// Too long: the more telling (longer) topics stay, in order.
	got = episodePhrase([]string{"Mel", "LGBTQ support group", "painting", "adoption agencies"}, 40)
	if want := "LGBTQ support group, adoption agencies"; got != want {
		t.Errorf("phrase %q, want %q", got, want)
	}
}

func TestDaySpan(t *testing.T) {
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 13, 0, 0, 0, time.UTC) }
	tests := []struct {
		first, last time.Time
		lang, want  string
	}{
		{d(2023, 5, 8), d(2023, 5, 8), "en", "8 May 2023"},
		{d(2023, 5, 8), d(2023, 5, 12), "en", "8–12 May 2023"},
		{d(2023, 5, 28), d(2023, 6, 2), "en", "28 May – 2 Jun 2023"},
		{d(2022, 12, 30), d(2023, 1, 2), "en", "30 Dec 2022 – 2 Jan 2023"},
		{d(2023, 5, 8), d(2023, 5, 12), "ru", "8–12 мая 2023"},
		{d(2023, 5, 28), d(2023, 6, 2), "ru", "28 мая – 2 июня 2023"},
		{d(2023, 5, 8), time.Time{}, "en", "8 May 2023"},
		{time.Time{}, d(2023, 5, 8), "en", ""},
	}
	for _, tt := range tests {
		if got := daySpan(tt.first, tt.last, tt.lang); got != tt.want {
			t.Errorf("daySpan(%v, %v, %s) = %q, want %q", tt.first, tt.last, tt.lang, got, tt.want)
		}
	}
}

// TestBlockShowsEpisodes: an episode shows its days; when the block is
// short of room the whole anchors' topics fold before the episodes'.
func TestBlockShowsEpisodes(t *testing.T) {
	runes := func(s string) int { return len([]rune(s)) }
	may := time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)
	as := []Anchor{
		{ID: 1, Topic: "прайс-лист на ЛДСП, доставка", Episode: true, CharPos: 10, FirstAt: may, LastAt: may.AddDate(0, 0, 4)},
		{ID: 5, Topic: "монтаж кухни и установка техники в субботу", CharPos: 500},
		{ID: 6, Topic: "перевод в доллары", CharPos: 900, Data: "Итого: $480"},
	}
	got := Block(as, 6, "ru", 0)
	if want := "[ТЕМЫ ДИАЛОГА: прайс-лист на ЛДСП, доставка (8–12 мая 2023) → монтаж кухни и установка техники в субботу → перевод в доллары]"; !strings.HasPrefix(got, want) {
		t.Errorf("block\n%s\nwant it to begin\n%s", got, want)
	}
	small := Block(as, 6, "ru", runes(got)-5)
	if !strings.Contains(small, "прайс-лист на ЛДСП") || strings.Contains(small, "монтаж кухни") || runes(small) > runes(got)-5 {
		t.Errorf("a small block should keep the episode and fold the whole anchor: %s", small)
	}
}

// TestBlockSharesData: when the data does not all fit, every anchor keeps
// some of its own (figures and dates first), the current one most,
// rather than the oldest losing all of it.
func TestBlockSharesData(t *testing.T) {
	var as []Anchor
	for i := range 10 {
		id := int64(i + 1)
		as = append(as, Anchor{ID: id, Topic: fmt.Sprintf("topic %c", 'a'+i), CharPos: 100 * id,
			Data: fmt.Sprintf("chit-chat number %d without much in it; price %d: %d руб; more chit-chat of the topic", id, id, 1000+id)})
	}
	got := Block(as, 10, "en", 900)
	if n := len([]rune(got)); n > 900 {
		t.Fatalf("block of %d runes over its 900", n)
	}
	for _, a := range as {
		if want := fmt.Sprintf("price %d: %d руб", a.ID, 1000+a.ID); !strings.Contains(got, want) {
			t.Errorf("the block lost %q of anchor %d:\n%s", want, a.ID, got)
		}
	}
	if !strings.Contains(got, "topic j: chit-chat number 10 without much in it") {
		t.Errorf("the current anchor should keep more of its data:\n%s", got)
	}
}
