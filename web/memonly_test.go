package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"yakor/turn"
)

// importBody is an import of n messages; message 12 holds the door code.
func importBody(n int) string {
	msgs := make([]map[string]any, n)
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range msgs {
		role, text := "user", fmt.Sprintf("Shift note %d: the loading bay %d had %s", i+1, i%7, strings.Repeat("pallets and crates moved ", 4))
		if i%2 == 1 {
			role, text = "assistant", fmt.Sprintf("Logged note %d.", i+1)
		}
		if i == 11 {
			role, text = "user", "My name is Olga. The warehouse door code is 7731-QX."
		}
		msgs[i] = map[string]any{"role": role, "content": text, "author": "olga", "client_id": fmt.Sprintf("m%d", i+1),
			"created_at": start.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)}
	}
	return jsonBody(map[string]any{"messages": msgs})
}

// TestMemoryOnly: an app that calls its own model imports a 300-message
// conversation without turns (times, authors and client ids kept; the
// jobs anchor it and take its facts), and asks for the context of a
// question about message 12: the returned prompt holds message 12, and
// neither a turn nor a model call happened, nor was anything stored. A
// repeated import stores nothing twice; a bad one stores nothing.
func TestMemoryOnly(t *testing.T) {
	var requests requestLog
	s := mustStack(t, countingModel(t, &requests).model(), turn.Config{})
	thread := s.mustThread(t)
	path := "/api/v1/threads/" + thread + "/messages/import"
	var imp struct {
		Messages []struct {
			ID        int64     `json:"id"`
			CreatedAt time.Time `json:"created_at"`
		}
		Created, Skipped int
	}
	if code := s.do(t, "POST", path, importBody(300), &imp); code != http.StatusCreated || imp.Created != 300 || len(imp.Messages) != 300 {
		t.Fatalf("import: %d, %d created", code, imp.Created)
	}
	if !imp.Messages[11].CreatedAt.Equal(time.Date(2026, 3, 1, 9, 11, 0, 0, time.UTC)) {
		t.Fatalf("message 12's time %v", imp.Messages[11].CreatedAt)
	}
	msg12 := imp.Messages[11].ID
	if code := s.do(t, "POST", path, importBody(300), &imp); code != http.StatusCreated || imp.Created != 0 || imp.Skipped != 300 {
		t.Fatalf("a repeated import: %d, %d created", code, imp.Created)
	}

	before := s.counts(t)
	var ctx struct {
		Messages []struct{ Role, Content string }
		Layers   []struct {
			Name  string
			Chars int
		}
		Hits []struct {
			MessageID int64 `json:"message_id"`
		}
	}
	if code := s.do(t, "POST", "/api/v1/threads/"+thread+"/context", `{"message":"What is the warehouse door code?"}`, &ctx); code != http.StatusOK {
		t.Fatalf("context: %d", code)
	}
	found := false
	for _, m := range ctx.Messages {
		found = found || strings.Contains(m.Content, "7731-QX")
	}
	hit := false
	for _, h := range ctx.Hits {
		hit = hit || h.MessageID == msg12
	}
	last := ctx.Messages[len(ctx.Messages)-1]
	if !found || !hit || last.Role != "user" || last.Content != "What is the warehouse door code?" {
		t.Fatalf("the context holds no message 12 (hits %+v): %+v", ctx.Hits, ctx.Messages)
	}
	if strings.Contains(ctx.Messages[0].Content, "SEARCH_HISTORY") {
		t.Fatal("the app's model is told to write Yakor's search marker")
	}
	if after := s.counts(t); fmt.Sprint(after) != fmt.Sprint(before) || after["turns"] != 0 || len(requests.take()) != 0 {
		t.Fatalf("memory-only mode wrote %v -> %v or called the model", before, after)
	}

	var res struct {
		Hits []struct {
			MessageID int64 `json:"message_id"`
		}
	}
	s.do(t, "GET", fmt.Sprintf("/api/v1/threads/%s/search?q=warehouse+door+code&before=%d", thread, msg12), "", &res)
	for _, h := range res.Hits {
		if h.MessageID >= msg12 {
			t.Fatalf("search before message 12 found %d", h.MessageID)
		}
	}

	for name, body := range map[string]string{
		"too many": importBody(1001),
		"future":   `{"messages":[{"role":"user","content":"hi","created_at":"2099-01-01T00:00:00Z"}]}`,
		"bad role": `{"messages":[{"role":"user","content":"ok"},{"role":"system","content":"hi"}]}`,
		"empty":    `{"messages":[{"role":"user","content":"ok"},{"role":"user","content":""}]}`,
		"no list":  `{"messages":[]}`,
	} {
		before := s.counts(t)
		var e struct{ Error string }
		if code := s.do(t, "POST", path, body, &e); code != http.StatusBadRequest || e.Error == "" {
			t.Fatalf("%s: %d %q", name, code, e.Error)
		}
		if after := s.counts(t); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("%s: a refused import wrote %v -> %v", name, before, after)
		}
	}

	// The jobs bring the thread's memory up to the imported messages.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var anchors, facts int
		q := `SELECT (SELECT count(*) FROM microgoals WHERE thread_id = $1), (SELECT count(*) FROM facts WHERE thread_id = $1 OR source_message_ids && ARRAY(SELECT id FROM messages WHERE thread_id = $1))`
		if err := s.pool.QueryRow(context.Background(), q, thread).Scan(&anchors, &facts); err != nil {
			t.Fatal(err)
		}
		if anchors > 0 && facts > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the import: %d anchors, %d facts", anchors, facts)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
