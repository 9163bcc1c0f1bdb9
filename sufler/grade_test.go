package sufler_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"yakor/llm"
	"yakor/sufler"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		want    sufler.Grade
		wantErr string // substring of the error; "" for success
	}{
		{
			name: "valid",
			text: `{"score": 5, "reason": "Exact and grounded.", "research_topic": ""}`,
			want: sufler.Grade{Score: 5, Reason: "Exact and grounded."},
		},
		{
			name: "white space around",
			text: "\n\t {\"score\": 2, \"reason\": \"Wrong price.\", \"research_topic\": \"цены на ЛДСП\"}  \n",
			want: sufler.Grade{Score: 2, Reason: "Wrong price.", ResearchTopic: "цены на ЛДСП"},
		},
		{
			name: "json fence",
			text: "```json\n{\"score\": 4, \"reason\": \"Good.\", \"research_topic\": \"\"}\n```",
			want: sufler.Grade{Score: 4, Reason: "Good."},
		},
		{
			name: "bare fence",
			text: "```\n{\"score\": 3, \"reason\": \"Vague.\"}\n```\n",
			want: sufler.Grade{Score: 3, Reason: "Vague."},
		},
		{
			name: "topic missing when score is 3 or more",
			text: `{"score": 4, "reason": "Fine."}`,
			want: sufler.Grade{Score: 4, Reason: "Fine."},
		},
		{
			name: "float 4.0 is 4",
			text: `{"score": 4.0, "reason": "Fine."}`,
			want: sufler.Grade{Score: 4, Reason: "Fine."},
		},
		{
			name: "extra fields ignored",
			text: `{"score": 1, "reason": "Invented.", "research_topic": "delivery", "confidence": 0.9, "notes": ["a"]}`,
			want: sufler.Grade{Score: 1, Reason: "Invented.", ResearchTopic: "delivery"},
		},
		{name: "empty", text: "  ", wantErr: "empty answer"},
		{name: "prose before", text: `Here is the grade: {"score": 5, "reason": "ok"}`, wantErr: "not a JSON object"},
		{name: "prose after", text: `{"score": 5, "reason": "ok"} Hope this helps.`, wantErr: "text after the JSON object"},
		{name: "prose after fence", text: "```json\n{\"score\": 5, \"reason\": \"ok\"}\n```\nDone.", wantErr: "code fence"},
		{name: "other fence language", text: "```yaml\nscore: 5\n```", wantErr: "not json"},
		{name: "two objects", text: `{"score": 5, "reason": "ok"}{"score": 4, "reason": "ok"}`, wantErr: "text after"},
		{name: "array", text: `[{"score": 5, "reason": "ok"}]`, wantErr: "not a JSON object"},
		{name: "broken JSON", text: `{"score": 5, "reason": "ok"`, wantErr: "not a JSON object"},
		{name: "score too high", text: `{"score": 7, "reason": "ok"}`, wantErr: "sufler: parse grade: score 7 is outside 1..5"},
		{name: "score zero", text: `{"score": 0, "reason": "ok"}`, wantErr: "score 0 is outside 1..5"},
		{name: "score as string", text: `{"score": "4", "reason": "ok"}`, wantErr: `score "4" is not a number`},
		{name: "score 4.5", text: `{"score": 4.5, "reason": "ok"}`, wantErr: "score 4.5 is not an integer"},
		{name: "score null", text: `{"score": null, "reason": "ok"}`, wantErr: "score null is not a number"},
		{name: "missing score", text: `{"reason": "ok"}`, wantErr: "missing score"},
		{name: "missing reason", text: `{"score": 3}`, wantErr: "missing reason"},
		{name: "empty reason", text: `{"score": 3, "reason": "  "}`, wantErr: "reason is empty"},
		{name: "reason not a string", text: `{"score": 3, "reason": 42}`, wantErr: "reason 42 is not a string"},
		{name: "topic not a string", text: `{"score": 2, "reason": "ok", "research_topic": ["x"]}`, wantErr: "research_topic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := sufler.Parse(tt.text)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Parse(%q) = %+v, want an error with %q", tt.text, got, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Parse(%q) error = %q, want it to hold %q", tt.text, err, tt.wantErr)
				}
				if !errors.Is(err, sufler.ErrBadAnswer) {
					t.Errorf("Parse(%q) error %v does not wrap ErrBadAnswer", tt.text, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.text, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// fakeHelper answers every request with text, or fails with err.
type fakeHelper struct {
	text string
	err  error
	reqs []llm.Request
}

func (f *fakeHelper) Complete(_ context.Context, req llm.Request) (llm.Result, error) {
	f.reqs = append(f.reqs, req)
	if f.err != nil {
		return llm.Result{}, f.err
	}
	return llm.Result{Text: f.text, Provider: "openai", Model: "served-name"}, nil
}

func TestGraderGrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ex := sufler.Exchange{
		Question: "Сколько стоит лист ЛДСП белого дуба?",
		Answer:   "Лист стоит 1900 рублей.",
		Context:  "Прайс: лист ЛДСП белый дуб — 1500 рублей.",
	}

	t.Run("success", func(t *testing.T) {
		t.Parallel()
		h := &fakeHelper{text: "```json\n{\"score\": 5, \"reason\": \"  Exact\\n and grounded. \", \"research_topic\": \"leftover\"}\n```"}
		g := sufler.NewGrader(h, "gpt-4o-mini")
		if g.Offline() {
			t.Error("Offline() = true for a grader with a helper")
		}
		got, err := g.Grade(ctx, ex)
		if err != nil {
			t.Fatal(err)
		}
		want := sufler.Grade{Score: 5, Reason: "Exact and grounded.", Grader: "gpt-4o-mini"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Grade mismatch (-want +got):\n%s", diff)
		}
		if len(h.reqs) != 1 || !strings.Contains(h.reqs[0].Messages[1].Content, ex.Answer) {
			t.Errorf("the helper got %d requests, want 1 holding the answer", len(h.reqs))
		}
	})

	t.Run("model name from the result", func(t *testing.T) {
		t.Parallel()
		h := &fakeHelper{text: `{"score": 3, "reason": "Vague."}`}
		got, err := sufler.NewGrader(h, "").Grade(ctx, ex)
		if err != nil || got.Grader != "served-name" {
			t.Errorf("Grade = %+v, %v; want Grader %q", got, err, "served-name")
		}
	})

	t.Run("model error is returned, not swallowed", func(t *testing.T) {
		t.Parallel()
		cause := &llm.Error{Provider: "openai", Model: "gpt-4o-mini", Status: 503, Err: errors.New("overloaded")}
		_, err := sufler.NewGrader(&fakeHelper{err: cause}, "gpt-4o-mini").Grade(ctx, ex)
		if err == nil {
			t.Fatal("Grade succeeded on a failed model call")
		}
		var le *llm.Error
		if !errors.As(err, &le) || le.Status != 503 {
			t.Errorf("Grade error %v does not hold the *llm.Error", err)
		}
		if errors.Is(err, sufler.ErrBadAnswer) {
			t.Errorf("Grade error %v claims a bad answer", err)
		}
		if !strings.HasPrefix(err.Error(), "grade: ") {
			t.Errorf("Grade error %q lacks the grade: prefix", err)
		}
	})

	t.Run("bad JSON is a bad answer", func(t *testing.T) {
		t.Parallel()
		h := &fakeHelper{text: "I would give it a 4 out of 5."}
		_, err := sufler.NewGrader(h, "gpt-4o-mini").Grade(ctx, ex)
		if !errors.Is(err, sufler.ErrBadAnswer) {
			t.Fatalf("Grade error = %v, want one wrapping ErrBadAnswer", err)
		}
		if !strings.Contains(err.Error(), "4 out of 5") {
			t.Errorf("Grade error %q does not quote the answer", err)
		}
	})

	t.Run("empty topic on a 2 is filled from the question", func(t *testing.T) {
		t.Parallel()
		h := &fakeHelper{text: `{"score": 2, "reason": "The price is invented.", "research_topic": ""}`}
		got, err := sufler.NewGrader(h, "m").Grade(ctx, ex)
		if err != nil {
			t.Fatal(err)
		}
		if want := "стоит лист лдсп белого дуба"; got.ResearchTopic != want {
			t.Errorf("ResearchTopic = %q, want %q", got.ResearchTopic, want)
		}
	})

	t.Run("long reason and topic are cut", func(t *testing.T) {
		t.Parallel()
		h := &fakeHelper{text: `{"score": 1, "reason": "` + strings.Repeat("слово ", 200) +
			`", "research_topic": "` + strings.Repeat("тема ", 100) + `"}`}
		got, err := sufler.NewGrader(h, "m").Grade(ctx, ex)
		if err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(got.Reason); n > 500 {
			t.Errorf("Reason has %d runes, want at most 500", n)
		}
		if n := utf8.RuneCountInString(got.ResearchTopic); n > 200 {
			t.Errorf("ResearchTopic has %d runes, want at most 200", n)
		}
	})

	t.Run("no helper grades offline", func(t *testing.T) {
		t.Parallel()
		g := sufler.NewGrader(nil, "ignored")
		if !g.Offline() {
			t.Error("Offline() = false for a grader without a helper")
		}
		got, err := g.Grade(ctx, ex)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(sufler.Offline(ex), got); diff != "" {
			t.Errorf("Grade differs from Offline (-offline +got):\n%s", diff)
		}
	})
}

func TestRequest(t *testing.T) {
	t.Parallel()
	ex := sufler.Exchange{
		Question: "What did the price list say about LDSP?",
		Answer:   "It said 1200 rubles per sheet.",
		Context:  "user: The LDSP price list says 1200 rubles per sheet.",
		NextUser: "Thanks!",
	}
	req := sufler.Request(ex)
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		t.Fatalf("Request messages = %+v, want system then user", req.Messages)
	}
	if req.Temperature == nil || *req.Temperature != 0 {
		t.Errorf("Temperature = %v, want 0", req.Temperature)
	}
	if req.MaxTokens < 100 || req.MaxTokens > 500 {
		t.Errorf("MaxTokens = %d, want about 300", req.MaxTokens)
	}
	system := req.Messages[0].Content
	for _, want := range []string{"answers what was asked", "grounded in the context", "correct", "invents no data",
		"5 —", "1 —", `"research_topic"`, "only one JSON object"} {
		if !strings.Contains(system, want) {
			t.Errorf("system message lacks %q", want)
		}
	}
	user := req.Messages[1].Content
	for _, want := range []string{"=== CONTEXT ===\n" + ex.Context, "=== QUESTION ===\n" + ex.Question,
		"=== ANSWER ===\n" + ex.Answer, "=== NEXT USER MESSAGE ===\nThanks!"} {
		if !strings.Contains(user, want) {
			t.Errorf("user message lacks %q:\n%s", want, user)
		}
	}

	t.Run("no context, no next message", func(t *testing.T) {
		t.Parallel()
		user := sufler.Request(sufler.Exchange{Question: "q?", Answer: "a."}).Messages[1].Content
		if !strings.Contains(user, "=== CONTEXT ===\n(none)") || strings.Contains(user, "NEXT USER MESSAGE") {
			t.Errorf("user message:\n%s", user)
		}
	})

	t.Run("bounded", func(t *testing.T) {
		t.Parallel()
		big := sufler.Exchange{
			Question: strings.Repeat("вопрос ", 3000),
			Answer:   strings.Repeat("ответ ", 3000),
			Context:  "OLDEST " + strings.Repeat("контекст ", 5000) + "NEWEST",
			NextUser: strings.Repeat("дальше ", 3000),
		}
		user := sufler.Request(big).Messages[1].Content
		if n := utf8.RuneCountInString(user); n > 16500 {
			t.Errorf("user message has %d runes, want at most 16500", n)
		}
		if !strings.Contains(user, "NEWEST") || strings.Contains(user, "OLDEST") {
			t.Error("the context was not cut to its newest part")
		}
		if !strings.Contains(user, "=== CONTEXT (its newest part) ===\n…") {
			t.Error("the cut context is not marked")
		}
	})

	t.Run("offline notice dropped", func(t *testing.T) {
		t.Parallel()
		user := sufler.Request(sufler.Exchange{Question: "q?", Answer: englishNotice + "\n\nThe answer."}).Messages[1].Content
		if strings.Contains(user, "No language model") || !strings.Contains(user, "=== ANSWER ===\nThe answer.") {
			t.Errorf("user message:\n%s", user)
		}
	})
}
