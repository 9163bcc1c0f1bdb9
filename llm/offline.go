package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

const (
	providerOffline = "offline"

	// quoteRunes bounds the earlier message quoted by the offline reply.
	quoteRunes = 300
)

// Offline is the provider that needs nothing. Its chat reply quotes what
// best answers the question among what the prompt shows (the window, the
// facts, the anchors' key data, the summary, study notes), asks for a
// history search for what it does not show, and says that no language
// model is configured in a conversation's first reply; its embeddings are
// hashed features.
// The same input always gives the same output. It is safe for concurrent use.
type Offline struct{}

// NewOffline returns the offline provider.
func NewOffline() *Offline { return &Offline{} }

// Provider returns "offline".
func (o *Offline) Provider() string { return providerOffline }

// Model returns "offline".
func (o *Offline) Model() string { return providerOffline }

// Server returns "", as there is none.
func (o *Offline) Server() string { return "" }

// Complete returns the offline reply to req. It fails, with an *Error, only
// when ctx is done.
func (o *Offline) Complete(ctx context.Context, req Request) (Result, error) {
	res := o.result()
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("complete: %w", o.error(err))
	}
	res.Text = offlineReply(req.Messages)
	return res, nil
}

// Stream passes the offline reply to fn word by word; the deltas join to
// Complete's text. It checks ctx between deltas and fails with an *Error when
// ctx is done. If fn returns an error, Stream stops and returns it, wrapped.
func (o *Offline) Stream(ctx context.Context, req Request, fn func(delta string) error) (Result, error) {
	res := o.result()
	var text strings.Builder
	for _, delta := range chunks(offlineReply(req.Messages)) {
		if err := ctx.Err(); err != nil {
			res.Text = text.String()
			return res, fmt.Errorf("stream: %w", o.error(err))
		}
		if err := fn(delta); err != nil {
			res.Text = text.String()
			return res, fmt.Errorf("stream: delta callback: %w", err)
		}
		text.WriteString(delta)
	}
	res.Text = text.String()
	return res, nil
}

// Embed returns one unit-length vector of OfflineDims dimensions per text
// (the zero vector for a text without words). It fails, with an *Error, only
// when ctx is done.
func (o *Offline) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embed %d texts: %w", len(texts), o.error(err))
		}
		out[i] = offlineVector(t)
	}
	return out, nil
}

func (o *Offline) result() Result {
	return Result{Provider: providerOffline, Model: providerOffline, Attempts: 1}
}

func (o *Offline) error(err error) *Error {
	e := &Error{Provider: providerOffline, Model: providerOffline, Err: err}
	if errors.Is(err, context.DeadlineExceeded) {
		e.Timeout = true
		e.Err = &timeoutError{err: err}
	}
	return e
}

// quote collapses the text's white space and cuts it to quoteRunes runes.
func quote(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= quoteRunes {
		return text
	}
	return strings.TrimSpace(string([]rune(text)[:quoteRunes])) + "…"
}

// chunks splits text into word-by-word deltas, each a word with the white
// space that follows it; they join back to text.
func chunks(text string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if inSpace && !space {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// replyText is the offline reply's wording in one language.
type replyText struct {
	notice     string
	noQuestion string
	noMatch    string
	notFound   string
	noted      string // to a message that asks nothing the memory does not show
	// Answers, each quoting a passage: from the hits of a search, from the
	// user's or the assistant's message in the window, from a fact, from
	// the anchors' key data, from the summary, from a study note.
	found, fromUser, fromAssistant, fromFacts, fromAnchors, fromSummary, fromNote string
}

// answer is the answer quoting p.
func (t replyText) answer(p passage) string {
	f := map[int]string{fromFacts: t.fromFacts, fromAnchors: t.fromAnchors, fromSummary: t.fromSummary, fromNote: t.fromNote}[p.from]
	switch {
	case p.from != fromWindow:
	case p.role == "assistant":
		f = t.fromAssistant
	default:
		f = t.fromUser
	}
	return fmt.Sprintf(f, quote(p.text))
}

// wording returns the offline reply's wording in Russian or in English.
func wording(russian bool) replyText {
	if russian {
		return replyText{
			notice: "Языковая модель не настроена, поэтому отвечает офлайн-модель Якоря: она цитирует память " +
				"разговора. Задайте OPENAI_BASE_URL и YAKOR_CHAT_MODEL, чтобы подключить настоящую модель.",
			noQuestion:    "Вопроса для ответа нет.",
			noMatch:       "В памяти разговора пока нет ничего, что подходит к этому вопросу.",
			notFound:      "Поиск по истории разговора ничего не нашёл по этому вопросу.",
			noted:         "Принято.",
			found:         "Нашлось в истории разговора: «%s»",
			fromUser:      "Вы писали раньше: «%s»",
			fromAssistant: "Раньше в разговоре: «%s»",
			fromFacts:     "Из фактов, которые я помню: «%s»",
			fromAnchors:   "Из ключевых данных разговора: «%s»",
			fromSummary:   "Из сводки прежних сообщений: «%s»",
			fromNote:      "Из учебной заметки: «%s»",
		}
	}
	return replyText{
		notice: "No language model is configured, so Yakor's offline model answers by quoting the " +
			"conversation's memory. Set OPENAI_BASE_URL and YAKOR_CHAT_MODEL to use a real model.",
		noQuestion:    "There is no question to answer.",
		noMatch:       "Nothing in the conversation memory matches this question yet.",
		notFound:      "A search of the conversation's history found nothing for this question.",
		noted:         "Noted.",
		found:         "Found in the conversation's history: «%s»",
		fromUser:      "You said earlier: «%s»",
		fromAssistant: "Earlier in this conversation: «%s»",
		fromFacts:     "From the facts I keep: «%s»",
		fromAnchors:   "From the conversation's key data: «%s»",
		fromSummary:   "From the summary of earlier messages: «%s»",
		fromNote:      "From a study note: «%s»",
	}
}

// offlineLines are what opens a line of the offline reply, in both
// languages (the notice's first clause, the leads of the quoted lines),
// and the lines it writes whole.
var offlineLines = sync.OnceValues(func() (leads, whole []string) {
	for _, ru := range []bool{false, true} {
		t := wording(ru)
		clause, _, _ := strings.Cut(t.notice, ",")
		leads = append(leads, clause)
		for _, format := range []string{t.found, t.fromUser, t.fromAssistant, t.fromFacts, t.fromAnchors, t.fromSummary, t.fromNote} {
			lead, _, _ := strings.Cut(format, "%")
			leads = append(leads, lead)
		}
		whole = append(whole, t.noQuestion, t.noMatch, t.notFound, t.noted)
	}
	// Earlier versions quoted an earlier message so; their replies stay
	// stored.
	leads = append(leads, "The closest earlier message (", "Ближайшее из прежних сообщений (")
	return leads, whole
})

// IsOfflineReply reports whether text holds a line of the offline model's
// own wording, in English or Russian: its notice that no language model is
// configured (as this and earlier versions wrote it), its quote of what the
// prompt showed or of a history hit, or a line it writes whole ("Noted.",
// nothing matched). Such text is Yakor's, not the conversation's: memory
// takes no topic, data, fact, summary line or lesson from it.
func IsOfflineReply(text string) bool {
	for line := range strings.Lines(text) {
		if IsOfflineLine(line) {
			return true
		}
	}
	return false
}

// WithoutOfflineLines is text without the offline reply's own lines
// (IsOfflineLine): what a reader of the memory may take from it.
func WithoutOfflineLines(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		if !IsOfflineLine(line) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// IsOfflineLine reports whether line is one of the offline reply's own
// lines (see IsOfflineReply), in either language. The fact extractor uses
// it to keep Yakor's own wording, and the messages it quotes, out of what
// it keeps.
func IsOfflineLine(line string) bool {
	leads, whole := offlineLines()
	line = strings.TrimSpace(line)
	if line == "" {
		return false
	}
	for _, l := range leads {
		if strings.HasPrefix(line, l) {
			return true
		}
	}
	return slices.Contains(whole, line)
}
