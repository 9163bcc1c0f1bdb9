package sufler

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"yakor/llm"
)

//go:embed rubric_en.txt
var rubric string

// Bounds of the helper-model request and of a grade's texts, in runes.
const (
	contextRunes  = 6000 // the context's newest part
	questionRunes = 4000
	answerRunes   = 4000
	nextUserRunes = 2000
	reasonRunes   = 500
	topicRunes    = 200

	maxTokens = 300
)

// GraderOffline is Grade.Grader for a grade given by the offline heuristics.
const GraderOffline = "offline"

// contract is the output contract appended to the rubric.
const contract = `Reply with only one JSON object, no other text and no code fence:
{"score": 1-5, "reason": "one sentence", "research_topic": "a short topic to study, in the conversation's language, required when score <= 2, else empty"}
"score" is an integer from 1 to 5. "reason" is one sentence saying why. "research_topic" names what to study so that such a question is answered well next time; leave it "" when score is 3 or more.`

// ErrBadAnswer is wrapped by every error that Parse returns, and by Grade's
// error when the helper model's answer breaks the output contract, so that a
// caller can tell a bad answer from a failed model call.
var ErrBadAnswer = errors.New("sufler: bad grade answer")

// Exchange is one answered question, as the grader sees it.
type Exchange struct {
	Question string // the user's message
	Answer   string // the reply being graded
	Context  string // what the model saw besides the question (anchors, window, search hits); may be ""
	NextUser string // the user's next message in the thread, if any: a correction lowers the grade
}

// Grade is a score with its reason.
type Grade struct {
	Score         int    `json:"score"`          // 1..5
	Reason        string `json:"reason"`         // one sentence, at most 500 runes
	ResearchTopic string `json:"research_topic"` // what to study; set when Score <= 2, else ""
	Grader        string `json:"grader"`         // "offline" or the helper model's name
}

// Completer is the helper model. *llm.OpenAI and *llm.Offline satisfy it.
type Completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Result, error)
}

// Grader grades answers with the helper model, or offline when it has none.
// It is safe for concurrent use when its helper is.
type Grader struct {
	helper Completer
	model  string
}

// NewGrader returns a grader that asks helper, naming it model in its grades
// (the name the helper's result reports when model is ""). A nil helper
// makes an offline grader.
func NewGrader(helper Completer, model string) *Grader {
	return &Grader{helper: helper, model: model}
}

// Offline reports whether g grades by the offline heuristics.
func (g *Grader) Offline() bool { return g.helper == nil }

// Grade grades ex. An offline grader returns Offline(ex) and never fails.
// Otherwise Grade asks the helper model once, with Request(ex): a failed call
// is returned wrapped ("grade: …", holding the *llm.Error), never replaced
// by an offline grade, so the caller can retry; an answer that breaks the
// contract gives an error wrapping ErrBadAnswer. A grade of 2 or less without
// a research topic gets the offline one, made from the question; a grade of
// 3 or more loses its topic. Reason is cut to 500 runes, the topic to 200.
func (g *Grader) Grade(ctx context.Context, ex Exchange) (Grade, error) {
	if g.helper == nil {
		return Offline(ex), nil
	}
	res, err := g.helper.Complete(ctx, Request(ex))
	if err != nil {
		return Grade{}, fmt.Errorf("grade: %w", err)
	}
	name := g.model
	if name == "" {
		name = res.Model
	}
	if name == "" {
		name = "helper"
	}
	gr, err := Parse(res.Text)
	if err != nil {
		return Grade{}, fmt.Errorf("grade: model %q answered %q: %w", name, cut(res.Text, 200), err)
	}
	return gr.settle(name, ex.Question), nil
}

// settle finishes a helper's grade of an answer to question, as Grade
// documents: the grader's name, the reason on one line and cut, the
// research topic kept (or made) only for a grade of 2 or less.
func (gr Grade) settle(grader, question string) Grade {
	gr.Grader = grader
	gr.Reason = cut(oneLine(gr.Reason), reasonRunes)
	gr.ResearchTopic = oneLine(gr.ResearchTopic)
	switch {
	case gr.Score >= 3:
		gr.ResearchTopic = ""
	case gr.ResearchTopic == "":
		gr.ResearchTopic = topic(question)
	}
	gr.ResearchTopic = cut(gr.ResearchTopic, topicRunes)
	return gr
}

// Request builds the helper-model request for ex: a system message with the
// rubric and the output contract, and a user message with the exchange under
// labelled headers (CONTEXT, QUESTION, ANSWER, and NEXT USER MESSAGE when
// there is one). The context is cut to its newest 6000 runes, the question
// and the answer to their first 4000, the next message to its first 2000;
// the offline model's notice is dropped from the answer. Temperature is 0
// and MaxTokens 300.
func Request(ex Exchange) llm.Request {
	var b strings.Builder
	section := func(label, text string) {
		fmt.Fprintf(&b, "=== %s ===\n%s\n\n", label, text)
	}
	switch c := strings.TrimSpace(ex.Context); {
	case c == "":
		section("CONTEXT", "(none)")
	case utf8.RuneCountInString(c) > contextRunes:
		section("CONTEXT (its newest part)", tail(c, contextRunes))
	default:
		section("CONTEXT", c)
	}
	section("QUESTION", cut(strings.TrimSpace(ex.Question), questionRunes))
	section("ANSWER", cut(stripNotice(ex.Answer), answerRunes))
	if next := strings.TrimSpace(ex.NextUser); next != "" {
		section("NEXT USER MESSAGE", cut(next, nextUserRunes))
	}
	b.WriteString("=== END ===\nGrade the ANSWER. Reply with the JSON object only.")

	temp := float32(0)
	return llm.Request{
		Messages: []llm.Message{
			{Role: "system", Content: strings.TrimSpace(rubric) + "\n\n" + contract},
			{Role: "user", Content: b.String()},
		},
		MaxTokens:   maxTokens,
		Temperature: &temp,
	}
}

// parseError is an error of Parse; it wraps ErrBadAnswer.
type parseError struct{ msg string }

func (e *parseError) Error() string { return "sufler: parse grade: " + e.msg }

func (e *parseError) Unwrap() error { return ErrBadAnswer }

func badAnswer(format string, args ...any) error {
	return &parseError{msg: fmt.Sprintf(format, args...)}
}

// Parse reads the helper model's answer: exactly one JSON object
// {"score", "reason", "research_topic"}, alone or in a ```json (or bare ```)
// fence, with any white space around it; prose around it is an error. score
// must be a JSON number with an integral value in 1..5 (4.0 is 4; "4" and 4.5
// are errors), reason a non-empty string, research_topic a string or absent.
// Other fields are ignored. Parse does not fill Grader, nor a missing topic.
// Every error wraps ErrBadAnswer.
func Parse(text string) (Grade, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return Grade{}, badAnswer("empty answer")
	}
	if strings.HasPrefix(s, "```") {
		body, err := unfence(s)
		if err != nil {
			return Grade{}, err
		}
		s = body
	}
	if !strings.HasPrefix(s, "{") {
		return Grade{}, badAnswer("answer is not a JSON object: %q", cut(s, 60))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return Grade{}, badAnswer("answer is not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Grade{}, badAnswer("text after the JSON object")
	}
	return gradeOf(fields)
}

// ParseObject reads one grade object of a helper's answer, as Parse reads
// the object of a whole answer; its errors wrap ErrBadAnswer.
func ParseObject(raw json.RawMessage) (Grade, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Grade{}, badAnswer("grade is not a JSON object: %q", cut(string(raw), 60))
	}
	return gradeOf(fields)
}

// gradeOf reads a grade object's fields (see Parse).
func gradeOf(fields map[string]json.RawMessage) (Grade, error) {
	var g Grade
	raw, ok := fields["score"]
	if !ok {
		return Grade{}, badAnswer("missing score")
	}
	score := string(raw)
	if score == "" || !(score[0] == '-' || '0' <= score[0] && score[0] <= '9') {
		return Grade{}, badAnswer("score %s is not a number", cut(score, 40))
	}
	f, err := strconv.ParseFloat(score, 64)
	if err != nil || f != math.Trunc(f) {
		return Grade{}, badAnswer("score %s is not an integer", score)
	}
	if f < 1 || f > 5 {
		return Grade{}, badAnswer("score %s is outside 1..5", score)
	}
	g.Score = int(f)

	raw, ok = fields["reason"]
	if !ok {
		return Grade{}, badAnswer("missing reason")
	}
	if err := json.Unmarshal(raw, &g.Reason); err != nil || string(raw) == "null" {
		return Grade{}, badAnswer("reason %s is not a string", cut(string(raw), 40))
	}
	if g.Reason = strings.TrimSpace(g.Reason); g.Reason == "" {
		return Grade{}, badAnswer("reason is empty")
	}
	if raw, ok := fields["research_topic"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &g.ResearchTopic); err != nil {
			return Grade{}, badAnswer("research_topic %s is not a string", cut(string(raw), 40))
		}
		g.ResearchTopic = strings.TrimSpace(g.ResearchTopic)
	}
	return g, nil
}

// unfence returns the body of a ```json or bare ``` fence that is all of s.
func unfence(s string) (string, error) {
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return "", badAnswer("code fence on one line")
	}
	if lang := strings.TrimSpace(s[3:nl]); lang != "" && !strings.EqualFold(lang, "json") {
		return "", badAnswer("code fence of %q, not json", cut(lang, 20))
	}
	body, ok := strings.CutSuffix(s[nl+1:], "```")
	if !ok {
		return "", badAnswer("unclosed code fence or text after it")
	}
	return strings.TrimSpace(body), nil
}

// cut keeps the first n runes of s, the last of them "…" when s is longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// tail keeps the last n runes of s, the first of them "…" when s is longer.
func tail(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + strings.TrimSpace(string(r[len(r)-n+1:]))
}

// oneLine collapses the white space of s into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
