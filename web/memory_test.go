package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"yakor/account"
	"yakor/llm"
	"yakor/mnemos"
)

// memoryModel is one OpenAI-compatible server for the chat and the helper
// roles: a grading request (the rubric's contract in its system message) is
// answered with grades[question], a chat request with replies[question]
// (question: the request's newest user message), streamed. Every chat
// request is kept for the test to read.
type memoryModel struct {
	*fakeOpenAI
	mu        sync.Mutex
	replies   map[string][]string // deltas
	grades    map[string]string   // JSON
	failGrade bool                // answer grading requests with 500
	graded    int                 // grading requests answered
	note      string              // the study note the helper writes
	chats     []chatRequest
}

type chatRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func (r chatRequest) question() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

func (r chatRequest) text() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Role + ": " + m.Content + "\n")
	}
	return b.String()
}

func newMemoryModel(tb testing.TB) *memoryModel {
	c := &memoryModel{replies: map[string][]string{}, grades: map[string]string{}}
	c.fakeOpenAI = newFakeOpenAI(tb, func(w http.ResponseWriter, r *http.Request, n int) {
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if strings.Contains(req.Messages[0].Content, `"research_topic"`) {
			if c.failGrade {
				http.Error(w, `{"error":{"message":"helper overloaded"}}`, http.StatusInternalServerError)
				return
			}
			grade := `{"score": 3, "reason": "no canned grade"}`
			for q, g := range c.grades {
				if strings.Contains(req.Messages[1].Content, "=== QUESTION ===\n"+q) {
					grade = g
				}
			}
			c.graded++
			b, _ := json.Marshal(map[string]any{"id": "g", "object": "chat.completion", "model": "helper-1",
				"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]string{"role": "assistant", "content": grade}}}})
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
			return
		}
		if !req.Stream {
			// The research job's study note.
			b, _ := json.Marshal(map[string]any{"id": "n", "object": "chat.completion", "model": "helper-1",
				"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]string{"role": "assistant", "content": c.note}}}})
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
			return
		}
		c.chats = append(c.chats, req)
		deltas, ok := c.replies[req.question()]
		if !ok {
			deltas = []string{"I have no canned reply for that."}
		}
		streamChunks(w, deltas, false)
	})
	return c
}

func (c *memoryModel) lastChat(tb testing.TB, question string) chatRequest {
	tb.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.chats) - 1; i >= 0; i-- {
		if c.chats[i].question() == question {
			return c.chats[i]
		}
	}
	tb.Fatalf("the model was never asked %q", question)
	return chatRequest{}
}

func (c *memoryModel) helper() *llm.OpenAI {
	return llm.NewOpenAI(llm.OpenAIConfig{BaseURL: c.URL + "/v1", Model: "helper-1", Timeout: 2 * time.Second, MaxRetries: 0})
}

// send posts a message and returns the reply's id.
func (s *stack) send(tb testing.TB, thread, content string) int64 {
	tb.Helper()
	var r struct {
		Reply struct{ ID int64 }
		Error string
	}
	if code := s.do(tb, "POST", "/api/v1/threads/"+thread+"/messages", jsonBody(map[string]string{"content": content}), &r); code != http.StatusOK {
		tb.Fatalf("send %q: %d %s", content, code, r.Error)
	}
	return r.Reply.ID
}

// waitExperiences polls the experiences of level until there are n.
func (s *stack) waitExperiences(tb testing.TB, level, n int) []mnemos.Experience {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var out struct{ Experiences []mnemos.Experience }
		if code := s.do(tb, "GET", fmt.Sprintf("/api/v1/experiences?level=%d", level), "", &out); code != http.StatusOK {
			tb.Fatalf("experiences: %d", code)
		}
		if len(out.Experiences) >= n {
			return out.Experiences
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d experiences of level %d after a minute, want %d; jobs: %s", len(out.Experiences), level, n, s.jobs(tb))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const (
	vatExport     = "Do I have to charge VAT on exports to Norway?"
	vatExportBad  = "Yes, add 20% VAT to every export invoice."
	vatBooks      = "What is the VAT rate on children's books?"
	vatBooksGood  = "Children's books are zero-rated: 0% VAT."
	vatBooksNorth = "What VAT do I charge on children's books exported to Norway?"
)

// TestVATScenario: an answer graded 2 becomes a warning (L3), a sufler fail
// and a research topic; one graded 5 becomes an example (L1); a similar
// question in a new thread of the same tenant gets both in its prompt's
// <memory-context>, and another tenant's thread gets neither.
func TestVATScenario(t *testing.T) {
	model := newMemoryModel(t)
	model.replies[vatExport] = []string{vatExportBad}
	model.replies[vatBooks] = []string{vatBooksGood}
	model.replies[vatBooksNorth] = []string{"Books for children are zero-rated, ", "and exports carry no VAT."}
	model.grades[vatExport] = `{"score": 2, "reason": "Exports outside the VAT area are zero-rated; no VAT is charged.", "research_topic": "when VAT does not apply"}`
	model.grades[vatBooks] = "```json\n{\"score\": 5, \"reason\": \"Correct and grounded.\", \"research_topic\": \"\"}\n```"
	s := newStack(t, stackOptions{model: model.model(), grader: model.helper()})

	thread := s.mustThread(t)
	bad := s.send(t, thread, vatExport)
	good := s.send(t, thread, vatBooks)

	l3 := s.waitExperiences(t, 3, 1)
	if len(l3) != 1 || l3[0].Topic != "when VAT does not apply" || l3[0].Answer != vatExportBad || l3[0].ReplyMessageID != bad ||
		!strings.Contains(l3[0].Reason, "zero-rated") || l3[0].ThreadID != thread || l3[0].Model != "offline:offline" {
		t.Fatalf("L3: %+v", l3)
	}
	l1 := s.waitExperiences(t, 1, 1)
	if len(l1) != 1 || l1[0].Question != vatBooks || l1[0].Answer != vatBooksGood || l1[0].Score != 5 || l1[0].ReplyMessageID != good {
		t.Fatalf("L1: %+v", l1)
	}
	var fails struct{ Fails []mnemos.Fail }
	s.do(t, "GET", "/api/v1/research/fails", "", &fails)
	if len(fails.Fails) != 1 || fails.Fails[0].ReplyMessageID != bad || fails.Fails[0].Score != 2 || fails.Fails[0].Topic != "when VAT does not apply" {
		t.Fatalf("fails: %+v", fails)
	}
	var topics struct{ Topics []mnemos.Topic }
	s.do(t, "GET", "/api/v1/research/topics", "", &topics)
	if len(topics.Topics) != 1 || topics.Topics[0].Topic != "when VAT does not apply" || topics.Topics[0].Status != "pending" || topics.Topics[0].Fails != 1 {
		t.Fatalf("topics: %+v", topics)
	}
	trs := s.turnsOf(t, thread)
	if g := trs[0].Grades; len(g) != 1 || g[0].Score != 2 || g[0].Grader != "helper-1" || g[0].Source != "model" {
		t.Fatalf("grade in the first turn's trace: %+v", g)
	}

	metrics := s.metricsText(t)
	for _, want := range []string{
		`yakor_grades_total{score="2",source="model"} 1`, `yakor_grades_total{score="5",source="model"} 1`,
		// Each entry and its shared twin (no personal data in either).
		`yakor_experience_writes_total{level="1"} 2`, `yakor_experience_writes_total{level="3"} 2`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}

	// A new thread of the same tenant: the similar question's prompt holds
	// the example and the warning, fenced, right before the question.
	fresh := s.mustThread(t)
	s.send(t, fresh, vatBooksNorth)
	req := model.lastChat(t, vatBooksNorth)
	memory := req.Messages[len(req.Messages)-2]
	if memory.Role != "system" || !strings.HasPrefix(memory.Content, "<memory-context>") || !strings.HasSuffix(memory.Content, "</memory-context>") {
		t.Fatalf("no memory block before the question:\n%s", req.text())
	}
	for _, want := range []string{"Reference only", vatBooks, vatBooksGood, vatExportBad, "when VAT does not apply", "zero-rated; no VAT is charged"} {
		if !strings.Contains(memory.Content, want) {
			t.Errorf("memory block lacks %q:\n%s", want, memory.Content)
		}
	}
	trs = s.turnsOf(t, fresh)
	for _, l := range trs[0].Layers {
		if l.Name == "memory" && (l.Items != 2 || l.Chars == 0) {
			t.Errorf("memory layer in the trace: %+v", l)
		}
	}

	// Another tenant on the same database sees none of it.
	other, err := account.NewStore(s.pool).CreateTenantUser(context.Background(), "other")
	if err != nil {
		t.Fatal(err)
	}
	b := newStack(t, stackOptions{model: model.model(), grader: model.helper(), share: s, scope: other})
	bThread := b.mustThread(t)
	b.send(t, bThread, vatBooksNorth)
	if req := model.lastChat(t, vatBooksNorth); strings.Contains(req.text(), "memory-context") || strings.Contains(req.text(), vatExportBad) {
		t.Fatalf("another tenant's prompt holds this tenant's memory:\n%s", req.text())
	}
	for level := 1; level <= 3; level++ {
		var out struct{ Experiences []mnemos.Experience }
		b.do(t, "GET", fmt.Sprintf("/api/v1/experiences?level=%d", level), "", &out)
		if len(out.Experiences) != 0 {
			t.Fatalf("another tenant lists level %d: %+v", level, out.Experiences)
		}
	}
	if code := b.do(t, "DELETE", fmt.Sprintf("/api/v1/experiences/%d", l1[0].ID), "", nil); code != http.StatusNotFound {
		t.Fatalf("another tenant deleting an experience: %d", code)
	}
	if code := b.do(t, "POST", fmt.Sprintf("/api/v1/messages/%d/feedback", good), `{"thumb":"down"}`, nil); code != http.StatusNotFound {
		t.Fatalf("another tenant's feedback on a reply: %d", code)
	}
}

// jobs describes the job queue, for a failure message.
func (s *stack) jobs(tb testing.TB) string {
	rows, err := s.pool.Query(context.Background(), `SELECT kind, state, attempt, errors::text FROM river_job ORDER BY id`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var kind, state string
		var attempt int
		var errs *string
		_ = rows.Scan(&kind, &state, &attempt, &errs)
		fmt.Fprintf(&b, "\n%s %s attempt %d", kind, state, attempt)
		if errs != nil {
			b.WriteString(" " + *errs)
		}
	}
	return b.String()
}

// TestGradingHelperFails: while the helper model fails, the reply is sent
// at once and the grading job is retried with backoff; once the helper
// answers, the grade lands, once.
func TestGradingHelperFails(t *testing.T) {
	model := newMemoryModel(t)
	model.replies[vatBooks] = []string{vatBooksGood}
	model.grades[vatBooks] = `{"score": 5, "reason": "Correct.", "research_topic": ""}`
	model.failGrade = true
	s := newStack(t, stackOptions{model: model.model(), grader: model.helper()})
	thread := s.mustThread(t)

	start := time.Now()
	reply := s.send(t, thread, vatBooks)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the reply waited %v for grading", took)
	}
	// The job fails and is rescheduled, not dropped.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var state string
		var attempt int
		err := s.pool.QueryRow(context.Background(), `SELECT state, attempt FROM river_job WHERE kind = 'grade_reply'`).Scan(&state, &attempt)
		if err == nil && attempt >= 1 && state == "retryable" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grading job did not fail and wait for a retry: %s", s.jobs(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
	model.mu.Lock()
	model.failGrade = false
	model.mu.Unlock()

	l1 := s.waitExperiences(t, 1, 1)
	if len(l1) != 1 || l1[0].ReplyMessageID != reply {
		t.Fatalf("L1 after the retry: %+v", l1)
	}
	var errs int
	if err := s.pool.QueryRow(context.Background(), `SELECT cardinality(errors) FROM river_job WHERE kind = 'grade_reply'`).Scan(&errs); err != nil || errs < 1 {
		t.Fatalf("the job's failed attempts are not recorded: %d %v", errs, err)
	}
	if trs := s.turnsOf(t, thread); len(trs[0].Grades) != 1 || trs[0].Grades[0].Grader != "helper-1" {
		t.Fatalf("grades: %+v", trs[0].Grades)
	}
}

// TestFeedback: a user's thumbs down outranks the grader's 5 (the example
// becomes a warning and a research topic), the same thumb twice changes
// nothing, thumbs up turns it back; bad input is refused.
func TestFeedback(t *testing.T) {
	model := newMemoryModel(t)
	model.replies[vatBooks] = []string{vatBooksGood}
	model.grades[vatBooks] = `{"score": 5, "reason": "Correct.", "research_topic": ""}`
	s := newStack(t, stackOptions{model: model.model(), grader: model.helper()})
	thread := s.mustThread(t)
	reply := s.send(t, thread, vatBooks)
	s.waitExperiences(t, 1, 1)

	path := fmt.Sprintf("/api/v1/messages/%d/feedback", reply)
	for i := 0; i < 2; i++ {
		var r struct {
			Score  int
			Routed mnemos.Routed
		}
		if code := s.do(t, "POST", path, `{"thumb":"down","comment":"Books for adults are not zero-rated here."}`, &r); code != http.StatusOK || r.Score != 1 {
			t.Fatalf("thumb down: %d %+v", code, r)
		}
		if r.Routed.Skipped != (i == 1) {
			t.Fatalf("thumb down #%d: %+v", i+1, r.Routed)
		}
	}
	var l1 struct{ Experiences []mnemos.Experience }
	s.do(t, "GET", "/api/v1/experiences?level=1", "", &l1)
	l3 := s.waitExperiences(t, 3, 1)
	var fails struct{ Fails []mnemos.Fail }
	s.do(t, "GET", "/api/v1/research/fails", "", &fails)
	if len(l1.Experiences) != 0 || len(l3) != 1 || l3[0].Source != "user" || !strings.Contains(l3[0].Reason, "adults") || len(fails.Fails) != 1 {
		t.Fatalf("after thumbs down: L1 %+v, L3 %+v, fails %+v", l1, l3, fails)
	}
	if trs := s.turnsOf(t, thread); len(trs[0].Grades) != 2 || trs[0].Grades[0].Source != "user" || trs[0].Grades[0].Score != 1 {
		t.Fatalf("grades, the user's first: %+v", trs[0].Grades)
	}

	if code := s.do(t, "POST", path, `{"thumb":"up"}`, nil); code != http.StatusOK {
		t.Fatalf("thumb up: %d", code)
	}
	s.do(t, "GET", "/api/v1/experiences?level=3", "", &l1)
	if len(l1.Experiences) != 0 {
		t.Fatalf("the warning outlived the thumbs up: %+v", l1.Experiences)
	}
	s.waitExperiences(t, 1, 1)

	var user struct {
		UserMessage struct{ ID int64 } `json:"user_message"`
	}
	s.do(t, "POST", "/api/v1/threads/"+thread+"/messages", `{"content":"one more"}`, &user)
	for _, tc := range []struct {
		path, body string
		code       int
	}{
		{path, `{"thumb":"sideways"}`, http.StatusBadRequest},
		{path, `{}`, http.StatusBadRequest},
		{path, `{"thumb":"up","comment":"` + strings.Repeat("x", 2001) + `"}`, http.StatusBadRequest},
		{path, `not json`, http.StatusBadRequest},
		{fmt.Sprintf("/api/v1/messages/%d/feedback", user.UserMessage.ID), `{"thumb":"up"}`, http.StatusBadRequest},
		{"/api/v1/messages/999999/feedback", `{"thumb":"up"}`, http.StatusNotFound},
		{"/api/v1/messages/abc/feedback", `{"thumb":"up"}`, http.StatusNotFound},
	} {
		var e struct{ Error string }
		if code := s.do(t, "POST", tc.path, tc.body, &e); code != tc.code || e.Error == "" {
			t.Errorf("POST %s %.40s: %d %q, want %d with an error", tc.path, tc.body, code, e.Error, tc.code)
		}
	}
}

// TestScrubEchoedMemory: a model that echoes its memory block, fence and
// all, split across stream chunks, streams and stores a reply without it.
func TestScrubEchoedMemory(t *testing.T) {
	model := newMemoryModel(t)
	model.replies[vatBooks] = []string{vatBooksGood}
	model.grades[vatBooks] = `{"score": 5, "reason": "Correct.", "research_topic": ""}`
	s := newStack(t, stackOptions{model: model.model(), grader: model.helper()})
	s.send(t, s.mustThread(t), vatBooks)
	s.waitExperiences(t, 1, 1)

	fresh := s.mustThread(t)
	const q = "Which VAT rate applies to books for children?"
	// The echo: the block's opening split over chunks, one of its lines
	// outside any fence, then the real answer.
	model.replies[q] = []string{"Zero-rated. <memo", "ry-CONTEXT>\nReference only: notes…\nQ: ", vatBooks + "\n</memory-", "context>\n", "A: " + vatBooksGood + "\n", "So: 0% VAT on them."}
	code, events := s.stream(t, fresh, jsonBody(map[string]string{"content": q}))
	if code != http.StatusOK {
		t.Fatalf("stream: %d", code)
	}
	var streamed strings.Builder
	var stored string
	for _, ev := range events {
		switch ev.name {
		case "delta":
			streamed.WriteString(ev.data["text"].(string))
		case "done":
			stored = ev.data["reply"].(map[string]any)["content"].(string)
		}
	}
	req := model.lastChat(t, q)
	if !strings.Contains(req.text(), "<memory-context>") {
		t.Fatalf("the prompt had no memory block to echo:\n%s", req.text())
	}
	for _, got := range []string{streamed.String(), stored} {
		if strings.Contains(strings.ToLower(got), "memory-context") || strings.Contains(got, vatBooksGood) || strings.Contains(got, "Reference only") {
			t.Fatalf("the echo got through: %q", got)
		}
		if !strings.HasPrefix(got, "Zero-rated.") || !strings.HasSuffix(got, "So: 0% VAT on them.") {
			t.Fatalf("the answer around the echo was lost: %q", got)
		}
	}
	if streamed.String() != stored {
		t.Fatalf("streamed %q, stored %q", streamed.String(), stored)
	}
}

func (s *stack) metricsText(tb testing.TB) string {
	tb.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
