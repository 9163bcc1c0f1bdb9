package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"yakor/llm"
)

// offlineTalk is what a user says in a first conversation with the offline
// model, English and Russian: data, questions about it, facts, chit-chat.
var offlineTalk = []string{
	"Price list for the kitchen: oak board 3400 per sheet, birch panel 1250 per sheet, 12 sheets of oak in total.",
	"What did one oak board cost?",
	"The truck comes on Friday, delivery costs 2500.",
	"Remember: my name is Ann and my budget is 60000 rubles.",
	"What was the budget again?",
	"The installation team charges 9000.",
	"How much is the delivery?",
	"Thanks, that helps!",
	"Прайс на ЛДСП: белый 1200 руб/лист, дуб 1850 руб/лист.",
	"Сколько стоит лист белого ЛДСП?",
	"Дедлайн по проекту в пятницу.",
	"Я работаю над миграцией Postgres 14 на Postgres 16.",
	"Какая версия Postgres у нас будет?",
	"What is the weather like on Mars?",
	"Let us go back to the oak boards: how many sheets did we need?",
	"Спасибо, до завтра.",
}

// offlinePhrases are the offline model's fixed words: none may reach
// memory.
var offlinePhrases = []string{
	"No language model is configured", "Языковая модель не настроена", "offline model", "офлайн-модель",
	"You said earlier", "Earlier in this conversation", "From the facts I keep", "From the conversation's key data",
	"From the summary of earlier messages", "From a study note", "Found in the conversation's history",
	"Вы писали раньше", "Раньше в разговоре", "Из фактов, которые я помню", "Из ключевых данных разговора",
	"Из сводки прежних сообщений", "Из учебной заметки", "Нашлось в истории разговора",
	"The closest earlier message", "Ближайшее из прежних сообщений",
}

// TestOfflineConversationKeepsNoBoilerplate: 200 turns with the offline
// model, the user giving thumbs up and down as they go; then no stored
// experience, research topic, anchor or fact holds the offline model's
// words, while the anchors, facts and the user's grades are there.
func TestOfflineConversationKeepsNoBoilerplate(t *testing.T) {
	s := newStack(t, stackOptions{compact: true})
	thread := s.mustThread(t)
	thumbs := 0
	for i := range 200 {
		var out struct {
			Reply struct {
				ID      int64
				Content string
			}
		}
		msg := offlineTalk[i%len(offlineTalk)]
		if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", jsonBody(map[string]string{"content": msg}), &out); code != http.StatusOK {
			t.Fatalf("turn %d: %d", i, code)
		}
		if !llm.IsOfflineReply(out.Reply.Content) {
			t.Fatalf("turn %d: IsOfflineReply does not know the reply %q", i, out.Reply.Content)
		}
		if i == 0 != strings.Contains(out.Reply.Content, "No language model is configured") {
			t.Errorf("turn %d: the notice belongs to the first reply alone: %q", i, out.Reply.Content)
		}
		if i%7 == 1 {
			thumb := map[bool]string{true: "up", false: "down"}[i%2 == 1]
			if code := s.do(t, "POST", fmt.Sprintf("/api/v1/messages/%d/feedback", out.Reply.ID), fmt.Sprintf(`{"thumb":%q}`, thumb), nil); code != http.StatusOK {
				t.Fatalf("turn %d: feedback: %d", i, code)
			}
			thumbs++
		}
	}
	s.waitJobsIdle(t)

	ctx := context.Background()
	count := func(q string) int {
		var n int
		if err := s.pool.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM grades WHERE source = 'user'`); n != thumbs {
		t.Errorf("%d of the user's %d grades kept", n, thumbs)
	}
	if n := count(`SELECT count(*) FROM microgoals`); n == 0 {
		t.Error("no anchors were set")
	}
	if n := count(`SELECT count(*) FROM facts`); n == 0 {
		t.Error("no facts were kept")
	}
	stored := map[string]string{
		"experience":     `SELECT topic || ' | ' || question || ' | ' || answer || ' | ' || reason FROM experiences`,
		"research topic": `SELECT topic FROM research_topics`,
		"anchor":         `SELECT topic || ' | ' || data FROM microgoals`,
		"fact":           `SELECT text FROM facts`,
		"summary":        `SELECT content FROM messages WHERE kind = 'summary'`,
	}
	for what, q := range stored {
		rows, err := s.pool.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var text string
			if err := rows.Scan(&text); err != nil {
				t.Fatal(err)
			}
			n++
			for _, p := range offlinePhrases {
				if strings.Contains(strings.ToLower(text), strings.ToLower(p)) {
					t.Errorf("a stored %s holds the offline model's %q: %q", what, p, text)
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d stored %s rows checked", n, what)
	}
}
