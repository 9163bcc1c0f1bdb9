package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"yakor/turn"
)

// cannedModel is an OpenAI-compatible server that plays a model which
// searches: asked about dollars with no price list in view, it writes only
// the marker; given the hits, it answers from them.
type cannedModel struct {
	mu       sync.Mutex
	requests [][]map[string]string // each request's messages
	query    string
	answer   string
	filler   string
}

func (m *cannedModel) handle(w http.ResponseWriter, r *http.Request, _ int) {
	var req struct {
		Messages []map[string]string `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	m.mu.Lock()
	m.requests = append(m.requests, req.Messages)
	m.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]["content"]
	var reply []string
	switch {
	case strings.HasPrefix(last, "[FOUND IN HISTORY:") || strings.HasPrefix(last, "[НАЙДЕНО В ИСТОРИИ:"):
		reply = []string{m.answer[:10], m.answer[10:]}
	case strings.Contains(strings.ToLower(last), "dollar") || strings.Contains(strings.ToLower(last), "доллар"):
		// The marker arrives split across chunks, as real streams do.
		reply = []string{"SEARCH_", "HISTORY: ", m.query, "\n"}
	default:
		reply = []string{m.filler}
	}
	streamChunks(w, reply, false)
}

func priceList(ru bool) (string, []string) {
	items := []string{"ЛДСП Egger", "МДФ Kronospan", "Фанера ФК", "ХДФ", "Кромка ПВХ", "Петля Blum", "Направляющие Hettich", "Ручка-скоба", "Столешница", "Стеновая панель"}
	if !ru {
		items = []string{"Egger chipboard", "Kronospan MDF", "Birch plywood", "HDF board", "PVC edging", "Blum hinge", "Hettich runner", "Bar handle", "Worktop", "Wall panel"}
	}
	var b strings.Builder
	if ru {
		b.WriteString("Прайс-лист поставщика на декабрь:\n")
	} else {
		b.WriteString("Supplier price list for December:\n")
	}
	var lines []string
	total := 0
	for i := range 85 {
		price := 150 + (i*397)%4200
		total += price
		unit := "руб"
		if !ru {
			unit = "RUB"
		}
		line := fmt.Sprintf("%d. %s, артикул A-%03d — %d %s", i+1, items[i%len(items)], i+1, price, unit)
		if !ru {
			line = fmt.Sprintf("%d. %s, item A-%03d — %d %s", i+1, items[i%len(items)], i+1, price, unit)
		}
		lines = append(lines, line)
		b.WriteString(line + "\n")
	}
	if ru {
		fmt.Fprintf(&b, "Итого по прайсу: %d руб", total)
	} else {
		fmt.Fprintf(&b, "Price list total: %d RUB", total)
	}
	return b.String(), lines
}

// TestPriceListScenario: a price list in message 1 is pushed out of the
// 20,000-character window by the conversation after it; asked to convert
// the total to dollars, the model searches, the second pass sees the price
// lines, and the user never sees the marker.
func TestPriceListScenario(t *testing.T) {
	for _, tc := range []struct {
		name, question, query, answer string
		ru, stream                    bool
	}{
		{"RussianJSON", "Переведи итог в доллары", "прайс итого", "Итого по прайсу в долларах: примерно $2 400.", true, false},
		{"RussianSSE", "Переведи итог в доллары", "прайс итого", "Итого по прайсу в долларах: примерно $2 400.", true, true},
		{"EnglishJSON", "Convert the total to dollars", "price list total", "The price list total is about $2,400.", false, false},
		{"EnglishSSE", "Convert the total to dollars", "price list total", "The price list total is about $2,400.", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			filler := strings.Repeat("Давайте обсудим сроки монтажа кухни и график работ бригады. ", 15)
			if !tc.ru {
				filler = strings.Repeat("Let us discuss the kitchen installation dates and the crew's schedule. ", 13)
			}
			model := &cannedModel{query: tc.query, answer: tc.answer, filler: filler}
			fake := newFakeOpenAI(t, model.handle)
			s := mustStack(t, fake.model(), turn.Config{WindowChars: 20_000})
			thread := s.mustThread(t)
			path := "/api/v1/threads/" + thread + "/messages"

			list, lines := priceList(tc.ru)
			if code := s.do(t, "POST", path, jsonBody(map[string]string{"content": list}), nil); code != http.StatusOK {
				t.Fatalf("price list: %d", code)
			}
			for i := range 12 {
				if code := s.do(t, "POST", path, jsonBody(map[string]string{"content": fmt.Sprintf("%d. %s", i, filler)}), nil); code != http.StatusOK {
					t.Fatalf("filler %d: %d", i, code)
				}
			}
			// The price list is out of the window now.
			var ctx struct {
				Layers []struct{ Name, Text string }
			}
			s.do(t, "GET", "/api/v1/threads/"+thread+"/context", "", &ctx)
			if strings.Contains(ctx.Layers[3].Text, lines[0]) || ctx.Layers[3].Name != "window" {
				t.Fatal("the price list is still in the window: the scenario needs it pushed out")
			}

			var reply string
			if tc.stream {
				code, events := s.stream(t, thread, jsonBody(map[string]string{"content": tc.question}))
				if code != http.StatusOK {
					t.Fatalf("stream: %d", code)
				}
				var deltas strings.Builder
				searches := 0
				for _, ev := range events {
					switch ev.name {
					case "delta":
						deltas.WriteString(ev.data["text"].(string))
					case "search":
						searches++
						if ev.data["query"] != tc.query || len(ev.data["hits"].([]any)) == 0 {
							t.Fatalf("search event %v", ev.data)
						}
					case "done":
						reply = ev.data["reply"].(map[string]any)["content"].(string)
					}
				}
				if searches != 1 || deltas.String() != tc.answer {
					t.Fatalf("%d search events; the user saw %q", searches, deltas.String())
				}
			} else {
				var r turnResp
				if code := s.do(t, "POST", path, jsonBody(map[string]string{"content": tc.question}), &r); code != http.StatusOK {
					t.Fatalf("question: %d %s", code, r.Error)
				}
				reply = r.Reply.Content
			}
			if reply != tc.answer {
				t.Fatalf("reply %q, want %q", reply, tc.answer)
			}

			// The second pass saw the price lines, fenced, after the marker.
			model.mu.Lock()
			second := model.requests[len(model.requests)-1]
			model.mu.Unlock()
			n := len(second)
			if !strings.HasPrefix(second[n-2]["content"], "SEARCH_HISTORY: "+tc.query) || second[n-2]["role"] != "assistant" {
				t.Fatalf("second pass: the marker turn is %v", second[n-2])
			}
			block := second[n-1]["content"]
			for _, l := range []string{lines[0], lines[41], lines[84]} {
				if !strings.Contains(block, l) {
					t.Fatalf("the second pass lacks price line %q:\n%s", l, block[:min(len(block), 600)])
				}
			}
			// Nothing stored shows the marker.
			var listed struct{ Messages []message }
			s.do(t, "GET", path, "", &listed)
			for _, m := range listed.Messages {
				if m.Role == "assistant" && strings.Contains(m.Content, "SEARCH_HISTORY") {
					t.Fatalf("a stored reply shows the marker: %q", m.Content)
				}
			}
			trs := s.turnsOf(t, thread)
			tr := trs[len(trs)-1]
			if tr.Status != "ok" || len(tr.Searches) != 1 || tr.Searches[0].Query != tc.query || len(tr.Searches[0].HitIDs) == 0 {
				t.Fatalf("trace: %+v", tr)
			}
		})
	}
}
