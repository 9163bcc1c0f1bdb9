package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	providerOffline = "offline"

	// quoteRunes bounds the earlier message quoted by the offline reply.
	quoteRunes = 300
)

// Offline is the provider that needs nothing. Its chat reply says plainly
// that no language model is configured and quotes the earlier message of the
// request that best matches the question; its embeddings are hashed features.
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
	found      string // quoted hit line
	quote      string // role, quoted text
	user       string
	assistant  string
}

func (t replyText) role(role string) string {
	switch role {
	case "user":
		return t.user
	case "assistant":
		return t.assistant
	}
	return role
}

// wording returns the offline reply's wording in Russian or in English.
func wording(russian bool) replyText {
	if russian {
		return replyText{
			notice: "Языковая модель не настроена, поэтому это офлайн-ответ Якоря, собранный из памяти " +
				"разговора. Задайте OPENAI_BASE_URL и YAKOR_CHAT_MODEL, чтобы подключить настоящую модель.",
			noQuestion: "Вопроса для ответа нет.",
			noMatch:    "В памяти разговора пока нет ничего, что подходит к этому вопросу.",
			notFound:   "Поиск по истории разговора ничего не нашёл по этому вопросу.",
			found:      "Нашлось в истории разговора: «%s»",
			quote:      "Ближайшее из прежних сообщений (%s): «%s»",
			user:       "пользователь",
			assistant:  "ассистент",
		}
	}
	return replyText{
		notice: "No language model is configured, so this is Yakor's offline reply, built from the " +
			"conversation memory. Set OPENAI_BASE_URL and YAKOR_CHAT_MODEL to use a real model.",
		noQuestion: "There is no question to answer.",
		noMatch:    "Nothing in the conversation memory matches this question yet.",
		notFound:   "A search of the conversation's history found nothing for this question.",
		found:      "Found in the conversation's history: «%s»",
		quote:      "The closest earlier message (%s): «%s»",
		user:       "user",
		assistant:  "assistant",
	}
}

// IsOfflineLine reports whether line is one of the offline reply's own
// lines, in either language: its notice, one of its fixed answers, or a
// line quoting an earlier message or a search hit ("The closest earlier
// message (user): «…»"). The memory layers use it to keep Yakor's own
// wording, and the messages it quotes, out of what they keep.
func IsOfflineLine(line string) bool {
	line = strings.TrimSpace(line)
	if line == "" {
		return false
	}
	for _, t := range []replyText{wording(false), wording(true)} {
		if line == t.notice || line == t.noQuestion || line == t.noMatch || line == t.notFound {
			return true
		}
		for _, f := range []string{t.found, t.quote} {
			if lead, _, _ := strings.Cut(f, "%s"); strings.HasPrefix(line, lead) {
				return true
			}
		}
	}
	return false
}
