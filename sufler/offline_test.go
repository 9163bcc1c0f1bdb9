package sufler_test

import (
	"context"
	"strings"
	"testing"

	"yakor/llm"
	"yakor/search"
	"yakor/sufler"
)

// The offline chat model's wording, copied literally from llm's wording():
// the grader must recognise it without llm exporting it.
const (
	englishNotice = "No language model is configured, so Yakor's offline model answers by quoting the " +
		"conversation's memory. Set OPENAI_BASE_URL and YAKOR_CHAT_MODEL to use a real model."
	russianNotice = "Языковая модель не настроена, поэтому отвечает офлайн-модель Якоря: она цитирует память " +
		"разговора. Задайте OPENAI_BASE_URL и YAKOR_CHAT_MODEL, чтобы подключить настоящую модель."
	englishNotFound = "A search of the conversation's history found nothing for this question."
	russianNotFound = "Поиск по истории разговора ничего не нашёл по этому вопросу."
)

func TestOffline(t *testing.T) {
	t.Parallel()
	const (
		enQ   = "What is the price of a white oak LDSP sheet?"
		enCtx = "user: The price list says a white oak LDSP sheet costs 1,500 rubles; delivery is 300."
		ruQ   = "Сколько стоит доставка в Казань?"
		ruCtx = "пользователь: Доставка в Казань стоит 1 500 рублей, срок 3 дня."
	)
	tests := []struct {
		name   string
		ex     sufler.Exchange
		score  int
		reason string // substring of the reason
	}{
		{"empty answer", sufler.Exchange{Question: enQ, Answer: " \n\t"}, 1, "empty"},
		{"only the notice", sufler.Exchange{Question: enQ, Answer: englishNotice}, 1, "empty"},

		// Rule 1: the next message corrects the answer.
		{"correction no,", sufler.Exchange{Question: enQ, Answer: "It costs 1500 rubles.", Context: enCtx,
			NextUser: "No, the list says 1600."}, 2, "next message corrected"},
		{"correction wrong", sufler.Exchange{Question: enQ, Answer: "It costs 1500.", Context: enCtx,
			NextUser: "That's WRONG, check again"}, 2, `"wrong"`},
		{"correction typographic apostrophe", sufler.Exchange{Question: enQ, Answer: "It costs 1500.", Context: enCtx,
			NextUser: "I think you’re mistaken here."}, 2, "you're mistaken"},
		{"correction actually, after a sentence", sufler.Exchange{Question: enQ, Answer: "It costs 1500.", Context: enCtx,
			NextUser: "Thanks. Actually, it went up last week."}, 2, "actually,"},
		{"correction нет,", sufler.Exchange{Question: ruQ, Answer: "Доставка стоит 1500 рублей.", Context: ruCtx,
			NextUser: "Нет, там было 1600."}, 2, "нет,"},
		{"correction на самом деле", sufler.Exchange{Question: ruQ, Answer: "Доставка стоит 1500 рублей.", Context: ruCtx,
			NextUser: "А на самом деле дороже."}, 2, "на самом деле"},
		{"correction это не так", sufler.Exchange{Question: ruQ, Answer: "Доставка стоит 1500 рублей.", Context: ruCtx,
			NextUser: "Это не так!"}, 2, "не так"},
		{"correction неправильно", sufler.Exchange{Question: ruQ, Answer: "Доставка стоит 1500 рублей.", Context: ruCtx,
			NextUser: "НЕПРАВИЛЬНО."}, 2, "неправильно"},
		{"know is not no", sufler.Exchange{Question: enQ, Answer: "A white oak LDSP sheet costs 1500 rubles.", Context: enCtx,
			NextUser: "I know, thanks. Nowhere cheaper?"}, 5, "numbers from the context"},
		{"no, thanks is not a correction", sufler.Exchange{Question: enQ, Answer: "A white oak LDSP sheet costs 1500 rubles.", Context: enCtx,
			NextUser: "No, thanks, that's all."}, 5, ""},
		{"no, in mid-sentence is not a correction", sufler.Exchange{Question: enQ, Answer: "A white oak LDSP sheet costs 1500 rubles.", Context: enCtx,
			NextUser: "Is there a discount or no, in your opinion?"}, 5, ""},
		{"правильно is not неправильно", sufler.Exchange{Question: ruQ, Answer: "Доставка в Казань стоит 1500 рублей.", Context: ruCtx,
			NextUser: "Правильно, спасибо. Нетто или брутто вес?"}, 5, ""},
		{"нет, спасибо is not a correction", sufler.Exchange{Question: ruQ, Answer: "Доставка в Казань стоит 1500 рублей.", Context: ruCtx,
			NextUser: "Нет, спасибо."}, 5, ""},

		// Rule 2: the answer has nothing.
		{"admits I don't know", sufler.Exchange{Question: enQ, Answer: "I don’t know the price.", Context: enCtx}, 2, "nothing to offer"},
		{"admits could not find", sufler.Exchange{Question: enQ, Answer: "I could not find any price list."}, 2, "could not find"},
		{"admits не знаю", sufler.Exchange{Question: ruQ, Answer: "Не знаю, уточните у менеджера."}, 2, "не знаю"},
		{"admits ничего не нашёл", sufler.Exchange{Question: ruQ, Answer: "Я ничего не нашёл про доставку."}, 2, "ничего не нашел"},
		{"admits нет информации", sufler.Exchange{Question: ruQ, Answer: "По этому вопросу нет информации."}, 2, "нет информации"},
		{"unknown is not know", sufler.Exchange{Question: enQ, Answer: "The white oak LDSP sheet price is unknown to the idontknow bot."}, 4, "keywords"},
		{"offline not found, English", sufler.Exchange{Question: enQ, Answer: englishNotice + "\n\n" + englishNotFound, Context: enCtx}, 2, "found nothing"},
		{"nothing asked, nothing failed", sufler.Exchange{Question: "My name is Anna. Price list: board 3400.", Answer: "Nothing in the conversation memory matches this question yet.", Context: enCtx}, 3, "not clearly grounded"},
		{"a question without a question mark", sufler.Exchange{Question: "what did the board cost", Answer: "I don't know.", Context: enCtx}, 2, "nothing to offer"},
		{"offline not found, Russian", sufler.Exchange{Question: ruQ, Answer: russianNotice + "\n\n" + russianNotFound, Context: ruCtx}, 2, "ничего не нашел"},

		// Rule 3: invented numbers.
		{"invented numbers listed", sufler.Exchange{Question: enQ, Context: enCtx,
			Answer: "It costs 1,700 rubles, 12.5% off, or 2 400 with delivery; 99 in stock, 77 on order."}, 2, "1,700, 12.5%, 2 400."},
		{"numbers from the question are not invented", sufler.Exchange{Question: "Is 2400 too much for a white oak LDSP sheet?", Context: enCtx,
			Answer: "2400 is more than the 1500 a white oak LDSP sheet costs."}, 5, ""},
		{"one digit is not a number to check", sufler.Exchange{Question: enQ, Context: enCtx,
			Answer: "A white oak LDSP sheet costs 1500 rubles, 2 sheets cost twice that."}, 5, ""},
		{"invented Russian number", sufler.Exchange{Question: ruQ, Context: ruCtx,
			Answer: "Доставка в Казань стоит 2 000 рублей."}, 2, "2 000"},
		{"no context, numbers not judged", sufler.Exchange{Question: enQ,
			Answer: "A white oak LDSP sheet costs 1700 rubles."}, 4, "keywords"},

		// Rule 4: grounded.
		{"separators: 1500 is 1,500", sufler.Exchange{Question: enQ, Context: enCtx,
			Answer: "A white oak LDSP sheet costs 1500 rubles."}, 5, "numbers from the context and shares"},
		{"separators: 1 500 with a no-break space is 1,500", sufler.Exchange{Question: "And delivery?", Context: enCtx,
			Answer: "Not covered; the sheet itself was 1\u00a0500."}, 4, "numbers from the context."},
		{"Russian: 1500 is 1 500, keywords by stem", sufler.Exchange{Question: ruQ, Context: ruCtx,
			Answer: "Доставку в Казань оценили в 1500 рублей."}, 5, ""},
		{"decimal comma", sufler.Exchange{Question: "Какая толщина листа?", Context: "Толщина листа 16,0 мм, вес 12,5 кг.",
			Answer: "Вес 12.5 кг, а толщина 16 мм."}, 5, ""},
		{"keywords only", sufler.Exchange{Question: enQ, Context: enCtx,
			Answer: "The white oak LDSP sheet price is in the list above."}, 4, "shares"},

		// Rule 5.
		{"not grounded", sufler.Exchange{Question: enQ, Context: enCtx, Answer: "Please ask the shop."}, 3, "not clearly grounded"},
		{"the notice does not count as keywords", sufler.Exchange{
			Question: "Which language model is configured, and how do I set YAKOR_CHAT_MODEL?",
			Answer:   englishNotice + "\n\nThe closest earlier message (user): «Hello there.»"}, 3, "not clearly grounded"},
		{"the Russian notice does not count as keywords", sufler.Exchange{
			Question: "Какая языковая модель настроена для офлайн-ответа?",
			Answer:   russianNotice + "\n\nБлижайшее из прежних сообщений (пользователь): «Привет.»"}, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := sufler.Offline(tt.ex)
			if got.Score != tt.score || !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("Offline = %d %q, want %d with %q", got.Score, got.Reason, tt.score, tt.reason)
			}
			if got.Grader != "offline" {
				t.Errorf("Grader = %q, want offline", got.Grader)
			}
			if (got.ResearchTopic != "") != (got.Score <= 2) {
				t.Errorf("ResearchTopic = %q for score %d", got.ResearchTopic, got.Score)
			}
			if again := sufler.Offline(tt.ex); again != got {
				t.Errorf("Offline is not deterministic: %+v, then %+v", got, again)
			}
		})
	}
}

func TestOfflineTopic(t *testing.T) {
	t.Parallel()
	tests := []struct{ question, want string }{
		{"What is the price of a white oak LDSP sheet in Kazan?", "price white oak ldsp sheet"},
		{"Сколько стоит доставка ЛДСП в Казань?", "стоит доставка лдсп казань"},
		{"Why?", "Why?"},
		{"Ну и что же?   А?", "Ну и что же? А?"},
		{strings.Repeat("ы ", 50) + "?", strings.TrimSpace(strings.Repeat("ы ", 30))},
	}
	for _, tt := range tests {
		got := sufler.Offline(sufler.Exchange{Question: tt.question, Answer: "I don't know."})
		if got.ResearchTopic != tt.want {
			t.Errorf("topic of %q = %q, want %q", tt.question, got.ResearchTopic, tt.want)
		}
	}
}

// TestOfflineModelReplies grades the offline chat model's real replies, so
// that a change of its wording breaks this test rather than the grades.
func TestOfflineModelReplies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, lang := range []string{"en", "ru"} {
		q := "What is the delivery time to Kazan?"
		if lang == "ru" {
			q = "Какой срок доставки в Казань?"
		}
		res, err := llm.NewOffline().Complete(ctx, llm.Request{Messages: []llm.Message{
			{Role: "user", Content: q},
			{Role: "user", Content: search.FormatHits(lang, "доставка Казань", nil, true)},
		}})
		if err != nil {
			t.Fatal(err)
		}
		notice, notFound := englishNotice, englishNotFound
		if lang == "ru" {
			notice, notFound = russianNotice, russianNotFound
		}
		if want := notice + "\n\n" + notFound; res.Text != want {
			t.Errorf("offline reply = %q, want %q: update this test's copy of llm's wording", res.Text, want)
		}
		if g := sufler.Offline(sufler.Exchange{Question: q, Answer: res.Text}); g.Score != 2 {
			t.Errorf("%s: Offline(not-found reply) = %+v, want score 2", lang, g)
		}
	}
}

// TestOfflineStamps: the date and time a found message carries are not
// invented numbers.
func TestOfflineStamps(t *testing.T) {
	g := sufler.Offline(sufler.Exchange{
		Question: "What did the oak board cost?",
		Answer:   "Found in the conversation's history: «(2026-12-02 15:40, user) Price list: oak board 3400»",
		Context:  "user: Price list: oak board 3400, birch panel 1250.",
	})
	if g.Score < 4 {
		t.Fatalf("grade %+v: the stamp was taken for invented data", g)
	}
}
