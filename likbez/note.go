package likbez

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"yakor/llm"
	"yakor/words"
)

// noteSystem tells the helper model how to write a study note.
const noteSystem = `You write study notes for an AI assistant that once answered a question on this topic badly.
From the article below, keep every fact, number, rate, date, condition and exception that bears on the topic; leave out everything else.
Do not add anything that is not in the article. Write plain text in the language of the topic, at most %d characters.
End with a line "Source: <the article's URL>".`

// pageChars is how much of a page the helper model reads.
const pageChars = 12_000

// note writes the study note of page for the topic: with the helper model
// when there is one (falling back to an extractive note if it fails, so
// that one broken model does not stop research), else extractively. The
// note always cites the page's URL.
func (s *Service) note(ctx context.Context, topic, title string, page Page) (string, error) {
	var note string
	if s.helper != nil {
		res, err := s.helper.Complete(ctx, llm.Request{
			Messages: []llm.Message{
				{Role: "system", Content: fmt.Sprintf(noteSystem, s.cfg.NoteChars)},
				{Role: "user", Content: fmt.Sprintf("TOPIC: %s\nTITLE: %s\nURL: %s\n\nARTICLE:\n%s", topic, title, page.URL, cutRunes(page.Text, pageChars))},
			},
			MaxTokens: s.cfg.NoteChars,
		})
		if err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			s.metrics.fallbacks.Inc()
			s.log.WarnContext(ctx, "the helper model could not write a study note; writing it extractively", "url", page.URL, "err", err)
		} else {
			note = strings.TrimSpace(res.Text)
		}
	}
	if note == "" {
		note = extract(topic, title, page.Text, s.cfg.NoteChars)
	}
	if note == "" {
		return "", fmt.Errorf("no text on the page bears on %q", topic)
	}
	note = cutRunes(note, 2*s.cfg.NoteChars)
	if !strings.Contains(note, page.URL) {
		note += "\nSource: " + page.URL
	}
	return note, nil
}

// extract is the offline study note: the page's sentences that share the
// most keywords with the topic (numbers count extra), in the page's order,
// up to max characters. It returns "" when no sentence shares a keyword.
func extract(topic, title, text string, max int) string {
	kws := words.Keywords(topic+" "+title, nil)
	type sentence struct {
		i     int
		text  string
		score int
	}
	var picked []sentence
	for i, sent := range sentences(text) {
		folded := words.Fold(sent)
		score := 0
		for _, k := range kws {
			if strings.Contains(folded, k.Stem) {
				score += 2
			}
		}
		if score == 0 {
			continue
		}
		if strings.ContainsFunc(sent, unicode.IsDigit) {
			score++
		}
		picked = append(picked, sentence{i, sent, score})
	}
	slices.SortStableFunc(picked, func(a, b sentence) int { return b.score - a.score })
	var keep []sentence
	n := 0
	for _, p := range picked {
		l := utf8.RuneCountInString(p.text) + 1
		if n+l > max {
			continue
		}
		keep = append(keep, p)
		n += l
	}
	slices.SortFunc(keep, func(a, b sentence) int { return a.i - b.i })
	var b strings.Builder
	for _, k := range keep {
		b.WriteString(k.text)
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

// sentences splits text into sentences (and lines), trimmed, each of a
// useful length.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		start := 0
		rs := []rune(line)
		for i, r := range rs {
			if (r == '.' || r == '!' || r == '?' || r == ';') && (i+1 == len(rs) || rs[i+1] == ' ') {
				out = appendSentence(out, string(rs[start:i+1]))
				start = i + 1
			}
		}
		out = appendSentence(out, string(rs[start:]))
	}
	return out
}

func appendSentence(out []string, s string) []string {
	s = strings.Join(strings.Fields(s), " ")
	if n := utf8.RuneCountInString(s); n < 20 || n > 600 {
		return out
	}
	return append(out, s)
}

type metrics struct {
	runs      *prometheus.CounterVec
	topics    *prometheus.CounterVec
	articles  prometheus.Counter
	fallbacks prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yakor_research_runs_total", Help: "Research runs, by trigger (schedule, api, cli) and status (done, failed).",
		}, []string{"trigger", "status"}),
		topics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yakor_research_topics_total", Help: "Research topics studied, by outcome (done, failed).",
		}, []string{"outcome"}),
		articles: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "yakor_research_articles_total", Help: "Research articles stored (a page re-read by a later run counts again).",
		}),
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "yakor_research_note_fallbacks_total", Help: "Study notes written extractively because the helper model failed.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.runs, m.topics, m.articles, m.fallbacks)
	}
	return m
}

func (m *metrics) run(trigger, status string, _ Report) {
	m.runs.WithLabelValues(trigger, status).Inc()
}
