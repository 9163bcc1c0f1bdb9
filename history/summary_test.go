package history_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"yakor/history"
)

// conv builds a conversation from "role: content" strings, ids from 1.
func conv(lines ...string) []history.Message {
	var ms []history.Message
	for i, l := range lines {
		role, content, _ := strings.Cut(l, ": ")
		kind := history.KindMessage
		if role == history.RoleTool {
			kind = history.KindTool
		}
		ms = append(ms, history.Message{ID: int64(i + 1), Role: role, Kind: kind, Content: content,
			Chars: utf8.RuneCountInString(content)})
	}
	return ms
}

func ids(ms []history.Message) []int64 {
	var out []int64
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestCheapPass(t *testing.T) {
	log := "line one of the log\nline two\nline three"
	tests := []struct {
		name     string
		in       []history.Message
		wantIDs  []int64
		contents []string
		saved    int
	}{
		{"tool output shrunk", conv("user: run it", "tool: "+log), []int64{1, 2},
			[]string{"run it", "line one of the log …"}, utf8.RuneCountInString(log) - 21},
		{"short tool output kept", conv("tool: ok"), []int64{1}, []string{"ok"}, 0},
		{"long one-line tool output cut", conv("tool: " + strings.Repeat("x", 1000)), []int64{1},
			[]string{strings.Repeat("x", 199) + "… …"}, 1000 - 202},
		{"role tool without kind", []history.Message{{ID: 7, Role: "tool", Content: "a\nb\nc\nd\ne\nf"}},
			[]int64{7}, []string{"a …"}, 8},
		{"duplicate dropped", conv("user: Same   text ", "assistant: other", "user:  Same text"), []int64{1, 2},
			[]string{"Same   text ", "other"}, 10},
		{"nothing to do", conv("user: a", "assistant: b"), []int64{1, 2}, []string{"a", "b"}, 0},
		{"the offline model's reply dropped", conv("user: Board 3400", "assistant: You said earlier: «Board 3400»"), []int64{1},
			[]string{"Board 3400"}, utf8.RuneCountInString("You said earlier: «Board 3400»")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.in)
			got, saved := history.CheapPass(tt.in)
			if diff := cmp.Diff(tt.wantIDs, ids(got)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			for i, m := range got {
				if want := tt.contents[i]; m.Content != want || m.Chars != 0 && m.Chars != utf8.RuneCountInString(m.Content) {
					t.Errorf("message %d = %q (chars %d), want %q", m.ID, m.Content, m.Chars, want)
				}
			}
			if saved != tt.saved {
				t.Errorf("saved = %d, want %d", saved, tt.saved)
			}
			if diff := cmp.Diff(before, tt.in); diff != "" {
				t.Errorf("input modified:\n%s", diff)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	ten := conv("user: q1", "assistant: a1", "user: 333", "assistant: 444", "user: 555",
		"assistant: 666", "user: 777", "assistant: 888", "user: 999", "assistant: 000")
	tests := []struct {
		name          string
		in            []history.Message
		budget        int
		head, mid, tl []int64
	}{
		{"empty", nil, 100, nil, nil, nil},
		{"one message", conv("user: hi"), 0, []int64{1}, nil, nil},
		{"tiny thread", conv("user: hi", "assistant: hello", "user: bye"), 0, []int64{1, 2}, nil, []int64{3}},
		{"four fit the minimum tail", ten[:4], 0, []int64{1, 2}, nil, []int64{3, 4}},
		{"budget of three", ten, 9, []int64{1, 2}, []int64{3, 4, 5, 6, 7}, []int64{8, 9, 10}},
		{"budget below two keeps two", ten, 1, []int64{1, 2}, []int64{3, 4, 5, 6, 7, 8}, []int64{9, 10}},
		{"chars unknown: rune count", []history.Message{{ID: 1, Role: "assistant", Content: "ааа"}, {ID: 2}, {ID: 3},
			{ID: 4, Content: "яя"}}, 3, nil, []int64{1}, []int64{2, 3, 4}},
		{"huge budget", ten, 1000, []int64{1, 2}, nil, []int64{3, 4, 5, 6, 7, 8, 9, 10}},
		{"no head when not at start", conv("assistant: hello", "user: a", "assistant: b", "user: c", "assistant: d"),
			2, nil, []int64{1, 2, 3}, []int64{4, 5}},
		{"user then user: head of one", conv("user: a", "user: b", "assistant: c", "user: d", "assistant: e"),
			2, []int64{1}, []int64{2, 3}, []int64{4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, m, tl := history.Split(tt.in, tt.budget)
			got := [][]int64{ids(h), ids(m), ids(tl)}
			if diff := cmp.Diff([][]int64{tt.head, tt.mid, tt.tl}, got); diff != "" {
				t.Errorf("head, middle, tail (-want +got):\n%s", diff)
			}
			if m != nil && len(m) == 0 {
				t.Errorf("empty middle is not nil")
			}
		})
	}
}

func TestSummaryRenderParse(t *testing.T) {
	s := history.Summary{
		Resolved:   []string{"Pizza: $12 each", "Total agreed: $150 - paid by card"},
		Pending:    []string{"Can we get a vegan option for Maria?"},
		ActiveTask: "Drafting the invitation email.",
	}
	en := s.Render("en", 3, 40)
	wantEN := "[SUMMARY of messages 3–40]\nResolved:\n- Pizza: $12 each\n- Total agreed: $150 - paid by card\n" +
		"Pending:\n- Can we get a vegan option for Maria?\nActive task:\n- Drafting the invitation email."
	if en != wantEN {
		t.Errorf("Render en =\n%s\nwant\n%s", en, wantEN)
	}
	ru := history.Summary{Resolved: []string{"Кофе — 150 ₽", "Итого 630 ₽"}, Pending: []string{"Доставка в субботу?"},
		ActiveTask: "Оформить счёт."}
	tests := []struct {
		name string
		s    history.Summary
		lang string
	}{
		{"en", s, "en"}, {"ru", ru, "ru"}, {"ru text in en layout", ru, "en"},
		{"empty sections", history.Summary{ActiveTask: "only a task"}, "ru"},
		{"multi-line items", history.Summary{Resolved: []string{"a\n b", "  "}}, "en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.s.Render(tt.lang, 1, 2)
			got, ok := history.ParseSummary(text)
			want := tt.s
			if tt.name == "multi-line items" {
				want = history.Summary{Resolved: []string{"a b"}}
			}
			if diff := cmp.Diff(want, got); !ok || diff != "" {
				t.Errorf("ParseSummary(%q) ok=%v (-want +got):\n%s", text, ok, diff)
			}
		})
	}
	if !strings.HasPrefix(ru.Render("ru", 5, 9), "[СВОДКА сообщений 5–9]\nРешено:\n- Кофе") {
		t.Errorf("ru render = %q", ru.Render("ru", 5, 9))
	}
	loose, ok := history.ParseSummary("Active task: fix the bug\nPending:\n- ask Bob\n  about it")
	if want := (history.Summary{Pending: []string{"ask Bob about it"}, ActiveTask: "fix the bug"}); !ok ||
		!cmp.Equal(want, loose) {
		t.Errorf("loose parse = %+v, %v", loose, ok)
	}
	if _, ok := history.ParseSummary("just a message\n- with a list"); ok {
		t.Errorf("plain text parsed as a summary")
	}
}

func hasItem(items []string, sub string) bool {
	return slices.ContainsFunc(items, func(it string) bool { return strings.Contains(it, sub) })
}

func TestOfflineSummary(t *testing.T) {
	english := conv(
		"user: Hi! I'm planning a team lunch for Friday.",
		"assistant: Great, happy to help.",
		"user: Here is the price list:\n- Pizza: $12 each\n- Salad: $7 each\n- Drinks: $2 each",
		"assistant: Got it. For 10 people: 5 pizzas are $60, 10 salads are $70, 10 drinks are $20. The total is $150.",
		"user: Does the restaurant deliver to the office?",
		"assistant: Yes, the restaurant delivers to the office for free.",
		"user: OK let's go with that. Can we get a vegan option for Maria?",
		"assistant: I'll check the vegan menu and get back to you.",
		"tool: {\"total\": 999}",
		"user: Please also draft the invitation email. Keep it short.",
	)
	russian := conv(
		"user: Привет! Собираю заказ для офиса.",
		"assistant: Хорошо, давайте посчитаем.",
		"user: Прайс:\n- Кофе — 150 ₽\n- Чай — 120 ₽\n- Круассан — 90 ₽",
		"user: Сколько будет стоить 3 кофе и 2 круассана?",
		"assistant: 3 кофе — 450 ₽, 2 круассана — 180 ₽. Итого 630 ₽.",
		"user: Договорились, берём. А доставка в субботу возможна?",
		"assistant: Я уточню у курьера и вернусь позже.",
		"user: Тогда оформи, пожалуйста, счёт на оплату.",
	)
	prev := history.Summary{
		Resolved:   []string{"Budget agreed: $500 for 12 people."},
		Pending:    []string{"Which venue has parking?", "Who brings the cake?"},
		ActiveTask: "Planning the party.",
	}
	merge := conv("user: Let's pick the place.", "assistant: The Grand Hall venue has free parking for 40 cars.")
	tests := []struct {
		name                          string
		prev                          history.Summary
		msgs                          []history.Message
		resolved, pending, notPending []string
		notResolved                   []string
		task                          string
	}{
		{"english", history.Summary{}, english,
			[]string{"Pizza: $12 each", "Salad: $7 each", "Drinks: $2 each", "The total is $150.",
				"5 pizzas are $60", "OK let's go with that.", "team lunch for Friday"},
			[]string{"Can we get a vegan option for Maria?", "I'll check the vegan menu"},
			[]string{"Does the restaurant deliver"},
			[]string{"999", "happy to help", "Can we get"},
			"Please also draft the invitation email."},
		{"russian", history.Summary{}, russian,
			[]string{"Кофе — 150 ₽", "Чай — 120 ₽", "Круассан — 90 ₽", "Итого 630 ₽.", "450 ₽", "Договорились, берём."},
			[]string{"А доставка в субботу возможна?", "Я уточню у курьера и вернусь позже."},
			[]string{"Сколько будет стоить"},
			[]string{"Хорошо", "Собираю"},
			"Тогда оформи, пожалуйста, счёт на оплату."},
		{"merge with previous", prev, merge,
			[]string{"Budget agreed: $500 for 12 people.", "The Grand Hall venue has free parking for 40 cars."},
			[]string{"Who brings the cake?"}, []string{"Which venue has parking?"}, nil,
			"Let's pick the place."},
		{"no user message keeps the task", prev, conv("assistant: Noted, 3 chairs."),
			[]string{"Budget agreed", "Noted, 3 chairs."}, []string{"Which venue", "Who brings"}, nil, nil,
			"Planning the party."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := history.OfflineSummary(tt.prev, tt.msgs, 0)
			for _, w := range tt.resolved {
				if !hasItem(got.Resolved, w) {
					t.Errorf("Resolved lacks %q: %q", w, got.Resolved)
				}
			}
			for _, w := range tt.notResolved {
				if hasItem(got.Resolved, w) {
					t.Errorf("Resolved has %q: %q", w, got.Resolved)
				}
			}
			for _, w := range tt.pending {
				if !hasItem(got.Pending, w) {
					t.Errorf("Pending lacks %q: %q", w, got.Pending)
				}
			}
			for _, w := range tt.notPending {
				if hasItem(got.Pending, w) {
					t.Errorf("Pending has %q: %q", w, got.Pending)
				}
			}
			if got.ActiveTask != tt.task {
				t.Errorf("ActiveTask = %q, want %q", got.ActiveTask, tt.task)
			}
			if len(tt.prev.Resolved) > 0 && got.Resolved[0] != tt.prev.Resolved[0] {
				t.Errorf("previous resolved not first: %q", got.Resolved)
			}
		})
	}
	again := history.OfflineSummary(history.OfflineSummary(history.Summary{}, english, 0), english[4:], 0)
	if n := len(slices.DeleteFunc(slices.Clone(again.Resolved),
		func(s string) bool { return !strings.Contains(s, "$150") })); n != 1 {
		t.Errorf("merge repeated an item %d times: %q", n, again.Resolved)
	}
	long := strings.Repeat("word ", 60) + "costs 42 dollars."
	if got := history.OfflineSummary(history.Summary{}, conv("user: "+long), 0); len(got.Resolved) != 1 ||
		utf8.RuneCountInString(got.Resolved[0]) > 200 || !strings.Contains(got.Resolved[0], "42") {
		t.Errorf("long item = %q", got.Resolved)
	}
}

func TestOfflineSummaryBound(t *testing.T) {
	var prev history.Summary
	for i := range 30 {
		prev.Resolved = append(prev.Resolved, fmt.Sprintf("Decision %c: we agreed on the blue design variant", 'A'+i))
		prev.Resolved = append(prev.Resolved, fmt.Sprintf("Item %d costs %d.50 EUR", i, 10+i))
		prev.Pending = append(prev.Pending, fmt.Sprintf("Open question %c: who signs the contract?", 'A'+i))
	}
	prev.Pending = append(prev.Pending, "Will 7 chairs be enough?")
	for _, maxChars := range []int{2000, 900, 300, 60, 10} {
		t.Run(fmt.Sprint(maxChars), func(t *testing.T) {
			got := history.OfflineSummary(prev, conv("user: Now we choose the music."), maxChars)
			for _, lang := range []string{"en", "ru"} {
				if n := utf8.RuneCountInString(got.Render(lang, 123456, 1234567)); n > maxChars && maxChars >= 60 {
					t.Errorf("%s size %d > %d", lang, n, maxChars)
				}
			}
			digit := func(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }
			all := slices.Concat(got.Resolved, got.Pending)
			kept := len(slices.DeleteFunc(slices.Clone(all), func(s string) bool { return !digit(s) }))
			if slices.ContainsFunc(all, func(s string) bool { return !digit(s) }) && kept != 31 {
				t.Errorf("kept an item without a number but only %d with one", kept)
			}
			if maxChars >= 900 && kept == 0 {
				t.Errorf("numbers lost: %q", all)
			}
			if maxChars >= 900 && got.ActiveTask != "Now we choose the music." {
				t.Errorf("task = %q", got.ActiveTask)
			}
		})
	}
	if got := history.OfflineSummary(prev, nil, 0); !cmp.Equal(got, prev) {
		t.Errorf("maxChars 0 changed the summary")
	}
}

func TestSummaryRequest(t *testing.T) {
	big := "START " + strings.Repeat("х", 200_000) + " END"
	prev := history.Summary{Resolved: []string{"Кофе — 150 ₽"}, Pending: []string{"Доставка?"}}
	msgs := conv("user: Сколько стоит чай?", "assistant: Чай — 120 ₽.", "tool: "+big)
	msgs[0].Author = "Анна"
	req := history.SummaryRequest(prev, msgs, 1500)
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		t.Fatalf("messages = %+v", req.Messages)
	}
	if req.Temperature == nil || *req.Temperature != 0 || req.MaxTokens != 1200 {
		t.Errorf("temperature %v, max tokens %d", req.Temperature, req.MaxTokens)
	}
	sys, user := req.Messages[0].Content, req.Messages[1].Content
	for _, w := range []string{`"resolved"`, `"pending"`, `"active_task"`, "number", "name", "date", "decision",
		"open question", "previous summary", "chit-chat", "JSON", "Russian", "1500"} {
		if !strings.Contains(sys, w) {
			t.Errorf("system prompt lacks %q", w)
		}
	}
	for _, w := range []string{"- Кофе — 150 ₽", "- Доставка?", "user (#1, Анна): Сколько стоит чай?",
		"assistant (#2): Чай — 120 ₽.", "tool (#3): START", " END", "chars cut"} {
		if !strings.Contains(user, w) {
			t.Errorf("user message lacks %q", w)
		}
	}
	if n := utf8.RuneCountInString(user); n > 24_500 || n < 20_000 {
		t.Errorf("user message is %d runes", n)
	}
	var many []string
	for i := range 3000 {
		many = append(many, fmt.Sprintf("user: message %d %s", i, strings.Repeat("y", 50)))
	}
	user = history.SummaryRequest(history.Summary{}, conv(many...), 0).Messages[1].Content
	if n := utf8.RuneCountInString(user); n > 24_500 || !strings.Contains(user, "messages omitted") ||
		!strings.Contains(user, "(#1)") || !strings.Contains(user, "(#3000)") {
		t.Errorf("3000 messages: %d runes", n)
	}
	if sys := history.SummaryRequest(history.Summary{}, conv("user: hello there"), 0).Messages[0].Content; !strings.Contains(sys, "English") {
		t.Errorf("language not English")
	}
}

func TestParseSummaryAnswer(t *testing.T) {
	want := history.Summary{Resolved: []string{"Total $150"}, Pending: []string{"Vegan option?"}, ActiveTask: "Email"}
	valid := `{"resolved": ["Total $150"], "pending": ["Vegan option?"], "active_task": "Email"}`
	tests := []struct {
		name, text string
		want       history.Summary
		bad        bool
	}{
		{"valid", valid, want, false},
		{"fenced", "```json\n" + valid + "\n```", want, false},
		{"prose and fence", "Here it is:\n```\n" + valid + "\n```\nDone.", want, false},
		{"bare prose around", "Sure! " + valid + " Hope it helps.", want, false},
		{"lenient items", `{"resolved": [" Total\n$150 ", "", 42, "Total $150"], "pending": "Vegan option?",
			"active_task": "Email", "extra": 1}`, history.Summary{Resolved: []string{"Total $150", "42"},
			Pending: []string{"Vegan option?"}, ActiveTask: "Email"}, false},
		{"null task", `{"resolved": [], "pending": null, "active_task": null}`, history.Summary{}, false},
		{"empty", "", history.Summary{}, true},
		{"not json", "I could not summarize.", history.Summary{}, true},
		{"broken", `{"resolved": ["a"`, history.Summary{}, true},
		{"no keys", `{"summary": "x"}`, history.Summary{}, true},
		{"wrong type", `{"resolved": {"a": 1}}`, history.Summary{}, true},
		{"array", `["a", "b"]`, history.Summary{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := history.ParseSummaryAnswer(tt.text)
			if tt.bad {
				if !errors.Is(err, history.ErrBadSummary) {
					t.Errorf("err = %v, want ErrBadSummary", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWorth(t *testing.T) {
	tests := []struct {
		saved  int
		recent []int
		want   bool
	}{
		{5000, nil, true},
		{99, nil, false},
		{100, nil, true},
		{5000, []int{10}, true},
		{5000, []int{5000, 10, 20}, false},
		{5000, []int{10, 5000}, true},
		{5000, []int{5000, 10}, true},
		{5000, []int{10, 20, 100}, true},
		{0, []int{math.MaxInt}, false},
	}
	for _, tt := range tests {
		if got := history.Worth(tt.saved, tt.recent, 100); got != tt.want {
			t.Errorf("Worth(%d, %v, 100) = %v, want %v", tt.saved, tt.recent, got, tt.want)
		}
	}
}
