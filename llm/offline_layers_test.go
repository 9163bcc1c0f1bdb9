package llm_test

import (
	"context"
	"strings"
	"testing"

	"yakor/anchors"
	"yakor/facts"
	"yakor/history"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/search"
)

// TestOfflineReadsTheLayers: the offline model answers from what the
// prompt shows — the window, the facts block, the anchors' key data, the
// summary, a study note — each rendered here by the package that writes
// it, and asks for a search only for what none of them holds. These are
// the first-minutes cases: the README's demo, a figure said in passing, a
// budget the facts hold, a price list that scrolled out but stays in the
// anchors.
func TestOfflineReadsTheLayers(t *testing.T) {
	t.Parallel()
	head := func(lang string, blocks ...string) llm.Message {
		return llm.Message{Role: "system", Content: strings.Join(append([]string{"You are a helpful assistant.", search.Instruction(lang)}, blocks...), "\n\n")}
	}
	factBlock, _ := facts.Render([]facts.Fact{
		{ID: 1, Scope: facts.ScopeUser, Kind: facts.KindPreference, Text: "Prefers answers in short lists."},
		{ID: 2, Scope: facts.ScopeProject, Kind: facts.KindFact, Text: "The project budget is 60000 rubles."},
	}, "en", 1000)
	anchorBlock := anchors.Block([]anchors.Anchor{
		{ID: 1, Topic: "price list: oak board", Data: "oak board 3400 per sheet; birch panel 1250 per sheet", CharPos: 0},
		{ID: 2, Topic: "delivery", Data: "truck on Friday", CharPos: 500},
	}, 2, "en", 3000)
	summary := history.Summary{Resolved: []string{"The kitchen is 3.2 metres long."}, Pending: []string{"Choose the worktop colour."}}.Render("en", 1, 40)
	notes := mnemos.Render([]mnemos.Experience{
		{ID: 7, Level: mnemos.L2, Topic: "НДС", Question: "Когда НДС не начисляется", Answer: "НДС не начисляется на медицинские услуги по перечню правительства."},
		{ID: 8, Level: mnemos.L3, Topic: "доставка", Question: "Сколько стоит доставка в Казань?", Answer: "Доставка в Казань стоит 100 рублей."},
	}, "ru", 3000).Text
	tests := []struct {
		name string
		msgs []llm.Message
		want string // the reply, or its start
	}{
		{"the README's demo: the price list in the window", []llm.Message{
			head("en"), {Role: "user", Content: "Price list: board 3400, panel 1250"}, {Role: "user", Content: "What does a board cost?"},
		}, "No language model is configured, so Yakor's offline model answers by quoting the conversation's memory. Set OPENAI_BASE_URL and YAKOR_CHAT_MODEL to use a real model.\n\nYou said earlier: «Price list: board 3400, panel 1250»"},
		{"a figure said in passing", []llm.Message{
			head("en"), {Role: "user", Content: "The sofa is 31500"}, {Role: "assistant", Content: "Noted."}, {Role: "user", Content: "What is the sofa price?"},
		}, "You said earlier: «The sofa is 31500»"},
		{"the facts hold the budget", []llm.Message{
			head("en", factBlock), {Role: "user", Content: "Let us talk about the tiles."}, {Role: "assistant", Content: "Noted."}, {Role: "user", Content: "What was the project budget again?"},
		}, "From the facts I keep: «The project budget is 60000 rubles.»"},
		{"the anchors keep what scrolled out", []llm.Message{
			head("en", anchorBlock), {Role: "user", Content: "The truck comes on Friday, delivery costs 2500."}, {Role: "assistant", Content: "Noted."}, {Role: "user", Content: "What did one oak board cost?"},
		}, "From the conversation's key data: «price list: oak board: oak board 3400 per sheet»"},
		{"what nothing shows is searched for", []llm.Message{
			head("en"), {Role: "user", Content: "The truck comes on Friday, delivery costs 2500."}, {Role: "assistant", Content: "Noted."}, {Role: "user", Content: "What did one oak board cost?"},
		}, "SEARCH_HISTORY: oak board cost"},
		{"the summary", []llm.Message{
			head("en"), {Role: "system", Content: summary}, {Role: "user", Content: "Hi again"}, {Role: "assistant", Content: "Noted."}, {Role: "user", Content: "How long is the kitchen?"},
		}, "From the summary of earlier messages: «The kitchen is 3.2 metres long.»"},
		{"a study note, not a warning", []llm.Message{
			head("ru"), {Role: "user", Content: "Добрый день"}, {Role: "assistant", Content: "Принято."}, {Role: "system", Content: notes}, {Role: "user", Content: "Нужно ли начислять НДС на медицинские услуги?"},
		}, "Из учебной заметки: «НДС не начисляется на медицинские услуги по перечню правительства.»"},
		{"a warning is never quoted", []llm.Message{
			head("ru"), {Role: "user", Content: "Добрый день"}, {Role: "assistant", Content: "Принято."}, {Role: "system", Content: notes}, {Role: "user", Content: "Сколько стоит доставка в Казань?"},
		}, "SEARCH_HISTORY: стоит доставка казань"},
		{"Russian: a figure said in passing", []llm.Message{
			head("ru"), {Role: "user", Content: "Диван стоит 31500 рублей. Кресло дешевле."}, {Role: "assistant", Content: "Принято."}, {Role: "user", Content: "Сколько стоит диван?"},
		}, "Вы писали раньше: «Диван стоит 31500 рублей.»"},
		{"the offline model's own replies are not quoted", []llm.Message{
			head("en"), {Role: "user", Content: "Hello"}, {Role: "assistant", Content: "You said earlier: «the oak board is 3400»"}, {Role: "user", Content: "What did one oak board cost?"},
		}, "SEARCH_HISTORY: oak board cost"},
		{"a message that asks nothing is noted", []llm.Message{
			head("en"), {Role: "user", Content: "Hello"}, {Role: "assistant", Content: "Noted."}, {Role: "user", Content: "The installation team charges 9000."},
		}, "Noted."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := offlineComplete(t, tt.msgs)
			if res.Text != tt.want && !strings.HasPrefix(res.Text, tt.want+"\n") {
				t.Errorf("reply:\n%s\nwant:\n%s", res.Text, tt.want)
			}
			if strings.Contains(tt.want, "No language model") != strings.Contains(res.Text, "No language model") {
				t.Errorf("the notice belongs to the first reply only:\n%s", res.Text)
			}
			if !strings.HasPrefix(res.Text, "SEARCH_HISTORY") && !llm.IsOfflineReply(res.Text) {
				t.Errorf("IsOfflineReply does not know the reply %q", res.Text)
			}
		})
	}
}

// offlineComplete is the offline model's reply to msgs.
func offlineComplete(t *testing.T, msgs []llm.Message) llm.Result {
	t.Helper()
	res, err := llm.NewOffline().Complete(context.Background(), llm.Request{Messages: msgs})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	return res
}
