package bench

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"yakor/llm"
)

// scriptedModels are the upkeep benchmark's chat, helper and embedding
// models: each answers what it is asked in the shape asked, at once, and
// counts its calls and the characters sent to it.
type scriptedModels struct {
	chat   *scriptedChat
	helper *scriptedHelper
	embed  *scriptedEmbedder
}

func newScriptedModels(chars int) scriptedModels {
	return scriptedModels{chat: &scriptedChat{chars: chars}, helper: &scriptedHelper{kinds: map[string]int{}}, embed: &scriptedEmbedder{Offline: llm.NewOffline()}}
}

// fill copies the counts into r.
func (m scriptedModels) fill(r *upkeepResult) {
	r.ChatCalls, r.ChatChars = m.chat.calls, m.chat.sent
	r.HelperCalls, r.HelperChars, r.HelperByKind = m.helper.calls, m.helper.chars, maps.Clone(m.helper.kinds)
	r.EmbedCalls, r.EmbedChars = m.embed.calls, m.embed.chars
}

// requestChars is the characters of a request's messages.
func requestChars(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		n += utf8.RuneCountInString(m.Content)
	}
	return n
}

// scriptedChat answers every turn with a reply of about chars characters.
type scriptedChat struct {
	mu    sync.Mutex
	chars int
	calls int
	sent  int
}

func (c *scriptedChat) Stream(_ context.Context, req llm.Request, fn func(string) error) (llm.Result, error) {
	c.mu.Lock()
	c.calls++
	c.sent += requestChars(req)
	n := c.calls
	c.mu.Unlock()
	var b strings.Builder
	for i := 0; b.Len() < c.chars; i++ {
		fmt.Fprintf(&b, "Point %d of answer %d: the board is cut to size, edged and delivered within the week. ", i+1, n)
	}
	text := b.String()
	if err := fn(text); err != nil {
		return llm.Result{}, err
	}
	return llm.Result{Text: text, Model: "bench-chat", FinishReason: "stop"}, nil
}

func (c *scriptedChat) Provider() string { return "openai" }
func (c *scriptedChat) Model() string    { return "bench-chat" }

// scriptedHelper answers each kind of helper request, told apart by its
// system message, with a valid answer of that kind.
type scriptedHelper struct {
	mu    sync.Mutex
	calls int
	chars int
	kinds map[string]int
}

var (
	helperMsgRe   = regexp.MustCompile(`(?m)^\[(\d+)\] (?:user|assistant), \w{3} \d{4}-\d{2}-\d{2}: `)
	helperGradeRe = regexp.MustCompile(`(?m)^replies ([\d, ]+)$`)
)

func (h *scriptedHelper) Complete(_ context.Context, req llm.Request) (llm.Result, error) {
	system := ""
	if len(req.Messages) > 0 {
		system = req.Messages[0].Content
	}
	kind, answer := "other", `{}`
	switch {
	case strings.HasPrefix(system, "You keep the memory of a conversation"):
		kind, answer = "upkeep", scriptedReading(req.Messages[len(req.Messages)-1].Content)
	case strings.HasPrefix(system, "You track the topics"):
		kind, answer = "topics", `{"topic": "oak board", "data": "", "data_changed": false}`
	case strings.HasPrefix(system, "You grade one reply"):
		kind, answer = "grading", `{"score": 4, "reason": "Scripted.", "research_topic": ""}`
	case strings.HasPrefix(system, "You extract durable memory"):
		kind, answer = "facts", `{"facts": [], "forget": []}`
	case strings.Contains(system, "summar"):
		kind, answer = "summary", `{"resolved": ["The board was discussed."], "pending": [], "active_task": ""}`
	}
	h.mu.Lock()
	h.calls++
	h.chars += requestChars(req)
	h.kinds[kind]++
	h.mu.Unlock()
	return llm.Result{Text: answer, Model: "bench-helper", FinishReason: "stop"}, nil
}

// scriptedReading answers an upkeep request: a topic for each message it
// shows and a grade of 4 for each reply it asks about.
func scriptedReading(user string) string {
	var items, grades []string
	for _, m := range helperMsgRe.FindAllStringSubmatch(user, -1) {
		items = append(items, fmt.Sprintf(`{"id": %s, "topic": "oak board", "data": "", "data_changed": false}`, m[1]))
	}
	if g := helperGradeRe.FindStringSubmatch(user); g != nil {
		for _, id := range strings.Split(g[1], ", ") {
			grades = append(grades, fmt.Sprintf(`{"reply": %s, "score": 4, "reason": "Scripted.", "research_topic": ""}`, id))
		}
	}
	return fmt.Sprintf(`{"messages": [%s], "facts": [], "forget": [], "grades": [%s]}`, strings.Join(items, ", "), strings.Join(grades, ", "))
}

// scriptedEmbedder is the offline embedder, counted.
type scriptedEmbedder struct {
	*llm.Offline
	mu    sync.Mutex
	calls int
	chars int
}

func (e *scriptedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.calls++
	for _, t := range texts {
		e.chars += utf8.RuneCountInString(t)
	}
	e.mu.Unlock()
	return e.Offline.Embed(ctx, texts)
}

// kinds writes calls by kind, most first.
func kinds(by map[string]int) string {
	ks := slices.SortedFunc(maps.Keys(by), func(a, b string) int { return by[b] - by[a] })
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d", k, by[k]))
	}
	return strings.Join(parts, ", ")
}
