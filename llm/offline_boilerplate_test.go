package llm_test

import (
	"context"
	"strings"
	"testing"

	"yakor/llm"
)

// TestIsOfflineReply: every kind of offline reply, in both languages, is
// recognised, with its notice and without it (a reply whose notice is
// shown elsewhere); the conversation's own text is not.
func TestIsOfflineReply(t *testing.T) {
	t.Parallel()
	found := "[FOUND IN HISTORY: query \"price\"]\n(2025-03-01 10:00, user) The board costs 3400.\n"
	foundRU := "[НАЙДЕНО В ИСТОРИИ: запрос «цена»]\n(2025-03-01 10:00, пользователь) Доска стоит 3400.\n"
	conversations := map[string][]llm.Message{
		"en quote":     {{Role: "user", Content: "Price list: board 3400, panel 1250"}, {Role: "user", Content: "What does a board cost?"}},
		"ru quote":     {{Role: "user", Content: "Прайс: доска 3400, панель 1250"}, {Role: "user", Content: "Сколько стоит доска?"}},
		"en no match":  {{Role: "user", Content: "Hello there"}, {Role: "user", Content: "What is the weather in Oslo?"}},
		"ru no match":  {{Role: "user", Content: "Привет"}, {Role: "user", Content: "Какая погода в Осло?"}},
		"no question":  {{Role: "assistant", Content: "Hi"}},
		"en found":     {{Role: "user", Content: "What does a board cost?"}, {Role: "user", Content: found}},
		"ru found":     {{Role: "user", Content: "Сколько стоит доска?"}, {Role: "user", Content: foundRU}},
		"en not found": {{Role: "user", Content: "What does a board cost?"}, {Role: "user", Content: "[FOUND IN HISTORY: query \"x\"]\n"}},
		"ru not found": {{Role: "user", Content: "Сколько стоит доска?"}, {Role: "user", Content: "[НАЙДЕНО В ИСТОРИИ: запрос «x»]\n"}},
	}
	o := llm.NewOffline()
	for name, msgs := range conversations {
		res, err := o.Complete(context.Background(), llm.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		if !llm.IsOfflineReply(res.Text) {
			t.Errorf("%s: IsOfflineReply(%q) = false", name, res.Text)
		}
		body := res.Text
		if _, after, ok := strings.Cut(res.Text, "\n\n"); ok {
			body = after
		}
		if !llm.IsOfflineReply(body) {
			t.Errorf("%s: IsOfflineReply(%q), the reply without its notice, = false", name, body)
		}
	}
	for _, text := range []string{
		"Price list: board 3400, panel 1250",
		"No language model? Then let us configure one.",
		"The closest earlier shop is on Main Street.",
		"Языковая модель GPT-4 стоит дороже.",
		"Nothing matches this colour.",
		"",
	} {
		if llm.IsOfflineReply(text) {
			t.Errorf("IsOfflineReply(%q) = true", text)
		}
	}
}
