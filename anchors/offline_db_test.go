package anchors_test

import (
	"context"
	"strings"
	"testing"

	"yakor/history"
	"yakor/llm"
)

// TestOfflineConversationKeepsNoBoilerplate: a 200-turn conversation with
// the offline model, whose first reply opens with its notice and whose replies quote an
// earlier message (price lists among them), anchored offline: no anchor's
// topic or data, and no decision's topic, holds the offline model's
// wording, and the price lists' figures are kept from the user's messages.
func TestOfflineConversationKeepsNoBoilerplate(t *testing.T) {
	th := newThread(t)
	said := []string{
		"Price list for the kitchen: oak board 3400 per sheet, birch panel 1250 per sheet.",
		"What did one oak board cost?",
		"Прайс на ЛДСП: Egger 3400, Kronospan 2950 руб за лист.",
		"Сколько стоит лист Egger?",
		"The truck comes on Friday, delivery costs 2500.",
		"When does the truck come?",
		"Итого по кухне: 12 × 3400 = 40 800 руб.",
		"Напомни итого по кухне",
		"Thanks!",
		"Доставка в пятницу, не раньше.",
	}
	o := llm.NewOffline()
	var msgs []llm.Message
	var last int64
	for i := range 200 {
		content := said[i%len(said)]
		if i >= len(said) {
			content += " " + strings.Repeat("!", i/len(said)) // distinct, and no figure of its own
		}
		msgs = append(msgs, llm.Message{Role: "user", Content: content})
		th.say(t, content)
		res, err := o.Complete(context.Background(), llm.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: res.Text})
		m, _, err := th.hist.Append(th.ctx, th.scope, history.NewMessage{Role: "assistant", Content: res.Text})
		if err != nil {
			t.Fatal(err)
		}
		last = m.ID
	}
	if !llm.IsOfflineReply(msgs[3].Content) || !strings.Contains(msgs[3].Content, "3400") {
		t.Fatalf("the offline model's reply does not quote the price list, the test tests nothing: %q", msgs[3].Content)
	}

	svc := newService(th, nil)
	out, err := svc.Apply(th.ctx, th.scope, last)
	if err != nil || len(out) != 400 {
		t.Fatalf("Apply: %d decisions, %v; want 400", len(out), err)
	}
	l, err := svc.List(th.ctx, th.scope)
	if err != nil {
		t.Fatal(err)
	}
	var data []string
	for _, a := range l.Anchors {
		for _, s := range []string{a.Topic, a.Data} {
			if boilerplate(s) {
				t.Errorf("anchor %d holds the offline model's wording: topic %q, data %q", a.ID, a.Topic, a.Data)
			}
		}
		data = append(data, a.Data)
	}
	all := strings.Join(data, "\n")
	for _, want := range []string{"oak board 3400 per sheet", "Egger 3400", "12 × 3400 = 40 800 руб"} {
		if !strings.Contains(all, want) {
			t.Errorf("no anchor keeps %q: %q", want, all)
		}
	}
	ids := make([]int64, len(out))
	for i, a := range out {
		ids[i] = a.MessageID
	}
	ds, err := svc.Decisions(th.ctx, th.scope, ids)
	if err != nil || len(ds) != 400 {
		t.Fatalf("Decisions: %d, %v", len(ds), err)
	}
	for _, d := range ds {
		if boilerplate(d.Topic) {
			t.Errorf("decision of message %d has the topic %q", d.MessageID, d.Topic)
		}
	}
}

// boilerplate reports whether s holds any of the offline model's wording.
func boilerplate(s string) bool {
	for _, w := range []string{"language model", "Языковая модель", "closest earlier", "Ближайшее из прежних",
		"offline reply", "офлайн-ответ", "OPENAI_BASE_URL", "conversation memory", "памяти разговора", "«"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return llm.IsOfflineReply(s)
}
