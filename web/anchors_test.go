package web_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/turn"
)

type anchorList struct {
	Anchors []struct {
		ID       int64
		Topic    string
		Data     string
		Current  bool
		Absorbed []int64
	}
	ProcessedThrough int64 `json:"processed_through"`
}

// waitAnchors polls the thread's anchors until the jobs have anchored
// every message up to last.
func (s *stack) waitAnchors(tb testing.TB, thread string, last int64) anchorList {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var l anchorList
		if code := s.do(tb, "GET", "/api/v1/threads/"+thread+"/anchors", "", &l); code != http.StatusOK {
			tb.Fatalf("anchors: %d", code)
		}
		if l.ProcessedThrough >= last {
			return l
		}
		if time.Now().After(deadline) {
			tb.Fatalf("anchoring stopped at message %d of %d", l.ProcessedThrough, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func replyModel(tb testing.TB, text string) turn.Model {
	fake := newFakeOpenAI(tb, func(w http.ResponseWriter, r *http.Request, n int) {
		streamChunks(w, []string{text}, false)
	})
	return fake.model()
}

// TestAnchorDialogue: a scripted Russian dialogue with known topic changes
// makes one anchor per topic, merges when it returns to the first topic,
// and updates the data when the total changes; every decision is in the
// turn traces.
func TestAnchorDialogue(t *testing.T) {
	s := mustStack(t, replyModel(t, "Понял."), turn.Config{})
	thread := s.mustThread(t)
	path := "/api/v1/threads/" + thread + "/messages"
	script := []string{
		// kitchen chipboard
		"Прайс на ЛДСП для кухни: ЛДСП Egger 16 мм — 3400 руб за лист.",
		"Для кухни ЛДСП нужно 12 листов Egger.",
		"Итого ЛДСП для кухни: 12 × 3400 = 40800 руб.",
		"ЛДСП для кухни берём в цвете дуб.",
		// delivery
		"Теперь доставка: доставка по Москве стоит 2500 руб.",
		"Доставка возможна в субботу утром?",
		"Доставка до подъезда, подъём на этаж отдельно 800 руб.",
		// installation
		"Монтаж кухни делает бригада, монтаж стоит 15000 руб.",
		"Монтаж займёт два дня, бригада приедет в понедельник.",
		"Монтаж включает подключение мойки.",
		// back to the chipboard, then its total changes
		"Вернёмся к ЛДСП для кухни: Egger подтвердил наличие.",
		"ЛДСП для кухни: итого теперь 12 × 3600 = 43200 руб.",
		// payment
		"Оплата картой или переводом, предоплата 30%.",
		"Оплата остатка после монтажа, предоплата 12960 руб.",
		"Оплата переводом на счёт компании.",
		"Оплата подтверждена, спасибо.",
		"Хорошо.",
		"Оплата: чек пришлют на почту.",
		"Оплата и доставка согласованы.",
		"Спасибо, всё понятно.",
	}
	var lastID int64
	var turnIDs []string
	for _, c := range script {
		var r turnResp
		if code := s.do(t, "POST", path, jsonBody(map[string]string{"content": c}), &r); code != http.StatusOK {
			t.Fatalf("send %q: %d %s", c, code, r.Error)
		}
		lastID = r.Reply.ID
		turnIDs = append(turnIDs, r.TurnID)
	}
	l := s.waitAnchors(t, thread, lastID)

	// The decisions, message by message, from the turns' traces.
	var decisions []string
	for i, id := range turnIDs {
		var tr struct {
			Anchors []struct {
				MessageID int64 `json:"message_id"`
				Decision  string
				Rule      string
				Topic     string
			}
		}
		s.do(t, "GET", "/api/v1/turns/"+id, "", &tr)
		if len(tr.Anchors) != 2 {
			t.Fatalf("turn %d: %d anchor decisions, want one per message", i, len(tr.Anchors))
		}
		d := tr.Anchors[0]
		decisions = append(decisions, d.Decision)
		t.Logf("%2d %-18s %-17s %q", i, d.Decision, d.Rule, d.Topic)
	}
	want := map[int]string{0: "NEW_ANCHOR", 4: "NEW_ANCHOR", 7: "NEW_ANCHOR", 10: "MERGE_ANCHOR", 11: "UPDATE_ANCHOR_DATA", 12: "NEW_ANCHOR"}
	for i, d := range decisions {
		w, ok := want[i]
		if !ok {
			w = "NO_ANCHOR"
			if d == "UPDATE_ANCHOR_DATA" {
				continue // a message of the same topic adding data
			}
		}
		if d != w {
			t.Errorf("message %d %q: %s, want %s", i, script[i], d, w)
		}
	}
	if len(l.Anchors) != 4 {
		t.Fatalf("%d anchors, want 4 (chipboard, delivery, installation, payment): %+v", len(l.Anchors), l.Anchors)
	}
	kitchen := l.Anchors[0]
	if !strings.Contains(kitchen.Data, "43200") || strings.Contains(kitchen.Data, "40800") {
		t.Fatalf("the chipboard anchor's total was not updated: %q", kitchen.Data)
	}
}

// TestAnchorKeepsTotalAfterScroll: once the price list and its total have
// left a 20,000-character window, the next prompt still holds the anchor
// with the total, in Russian and in English.
func TestAnchorKeepsTotalAfterScroll(t *testing.T) {
	for _, tc := range []struct {
		name, filler, totalWord, opening, reply string
		ru                                      bool
	}{
		{"Russian", "Обсудим график работ бригады на объекте. ", "Итого", "[ТЕМЫ ДИАЛОГА:", "Понял, записал.", true},
		{"English", "Let us discuss the crew's schedule on site. ", "Price list total", "[DIALOGUE TOPICS:", "Got it, noted.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustStack(t, replyModel(t, tc.reply), turn.Config{WindowChars: 20_000})
			thread := s.mustThread(t)
			path := "/api/v1/threads/" + thread + "/messages"
			list, lines := priceList(tc.ru)
			s.do(t, "POST", path, jsonBody(map[string]string{"content": list}), nil)
			var r turnResp
			for i := range 12 {
				s.do(t, "POST", path, jsonBody(map[string]string{"content": fmt.Sprintf("%d. %s", i, strings.Repeat(tc.filler, 40))}), &r)
			}
			s.waitAnchors(t, thread, r.Reply.ID)
			var ctx struct {
				Layers []struct{ Name, Text string }
			}
			s.do(t, "GET", "/api/v1/threads/"+thread+"/context", "", &ctx)
			var anchorsText, window string
			for _, l := range ctx.Layers {
				switch l.Name {
				case "anchors":
					anchorsText = l.Text
				case "window":
					window = l.Text
				}
			}
			total := list[strings.LastIndex(list, tc.totalWord):]
			if strings.Contains(window, lines[0]) {
				t.Fatal("the price list is still in the window")
			}
			if !strings.Contains(anchorsText, total) || !strings.HasPrefix(anchorsText, tc.opening) {
				t.Fatalf("the anchors layer lacks the total %q:\n%s", total, anchorsText)
			}
		})
	}
}

// TestAnchorHelperModel: with a helper model, topics come from its strict
// JSON; a malformed or failed answer falls back to the offline extractor.
func TestAnchorHelperModel(t *testing.T) {
	answers := []string{
		`{"topic": "прайс ЛДСП", "data": "ЛДСП Egger: 3400 руб", "data_changed": true}`,
		"```json\n{\"topic\": \"прайс ЛДСП\", \"data\": \"\", \"data_changed\": false}\n```",
		`{"topic": "доставка", "data": "доставка 2500 руб"`, // malformed: cut off
		`{"topic": 5}`, // wrong type
		`{"topic": "доставка", "data": "доставка 3000 руб", "data_changed": true}`,
	}
	n := 0
	helperSrv := newFakeOpenAI(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		a := answers[min(n, len(answers)-1)]
		n++
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"helper-1","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`, a)
	})
	s := mustStackHelper(t, replyModel(t, "Ок."), helperSrv.model(), turn.Config{AnchorMode: turn.AnchorSync})
	thread := s.mustThread(t)
	path := "/api/v1/threads/" + thread + "/messages"
	var turns []string
	var r turnResp
	for _, c := range []string{"Прайс: ЛДСП Egger 3400 руб", "Доставка сколько стоит? Доставка 2500 руб"} {
		if code := s.do(t, "POST", path, jsonBody(map[string]string{"content": c}), &r); code != http.StatusOK {
			t.Fatalf("send: %d %s", code, r.Error)
		}
		turns = append(turns, r.TurnID)
	}
	s.waitAnchors(t, thread, r.Reply.ID) // the last reply is anchored by the job after it
	var sources []string
	for _, id := range turns {
		var tr struct {
			Anchors []struct{ Source, Topic, Decision string }
			Timings map[string]float64 `json:"timings_ms"`
		}
		s.do(t, "GET", "/api/v1/turns/"+id, "", &tr)
		if _, ok := tr.Timings["anchors"]; !ok {
			t.Fatalf("sync mode did not anchor before the answer: timings %v", tr.Timings)
		}
		for _, a := range tr.Anchors {
			sources = append(sources, a.Source+":"+a.Topic)
		}
	}
	// message 1 (helper), reply 1 (helper, fenced JSON), message 2 (malformed → offline), reply 2 (wrong type → offline)
	want := []string{"helper:прайс ЛДСП", "helper:прайс ЛДСП", "offline:Доставка", "offline:Доставка"}
	if strings.Join(sources, "|") != strings.Join(want, "|") {
		t.Fatalf("sources %v, want %v", sources, want)
	}
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := new(strings.Builder)
	_, _ = io.Copy(body, resp.Body)
	if !strings.Contains(body.String(), "yakor_anchor_extract_fallbacks_total 2") {
		t.Fatal("the two fallbacks were not counted in /metrics")
	}
}

func TestAnchorEdit(t *testing.T) {
	s := mustStack(t, replyModel(t, "Ок."), turn.Config{})
	thread := s.mustThread(t)
	var r turnResp
	s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"Прайс: ЛДСП Egger 3400 руб"}`, &r)
	l := s.waitAnchors(t, thread, r.Reply.ID)
	if len(l.Anchors) != 1 {
		t.Fatalf("%d anchors", len(l.Anchors))
	}
	id := fmt.Sprint(l.Anchors[0].ID)
	var a struct{ Topic, Data string }
	if code := s.do(t, "PATCH", "/api/v1/anchors/"+id, `{"topic":"прайс на ЛДСП","data":"ЛДСП Egger: 3500 руб"}`, &a); code != http.StatusOK || a.Topic != "прайс на ЛДСП" || a.Data != "ЛДСП Egger: 3500 руб" {
		t.Fatalf("edit: %d %+v", code, a)
	}
	for _, tc := range []struct {
		method, path, body string
		status             int
	}{
		{"PATCH", "/api/v1/anchors/" + id, `{"data":"` + strings.Repeat("x", 1501) + `"}`, 400},
		{"PATCH", "/api/v1/anchors/" + id, `{"topic":"  "}`, 400},
		{"PATCH", "/api/v1/anchors/" + id, `{}`, 400},
		{"PATCH", "/api/v1/anchors/999999", `{"topic":"x"}`, 404},
		{"PATCH", "/api/v1/anchors/abc", `{"topic":"x"}`, 404},
		{"DELETE", "/api/v1/anchors/999999", ``, 404},
		{"GET", "/api/v1/threads/nope/anchors", ``, 404},
	} {
		var e struct{ Error string }
		if code := s.do(t, tc.method, tc.path, tc.body, &e); code != tc.status || e.Error == "" {
			t.Errorf("%s %s: %d %q, want %d", tc.method, tc.path, code, e.Error, tc.status)
		}
	}
	if code := s.do(t, "DELETE", "/api/v1/anchors/"+id, "", nil); code != http.StatusOK {
		t.Fatalf("delete: %d", code)
	}
	if l := s.waitAnchors(t, thread, r.Reply.ID); len(l.Anchors) != 0 {
		t.Fatalf("still %d anchors after delete", len(l.Anchors))
	}
}
