package llm

import (
	"fmt"
	"strings"
	"time"

	"yakor/words"
)

// The offline model speaks the history-search protocol the way a real model
// does, as text: the system prompt teaches the marker, the model answers
// with a marker line alone, and the hits come back in a user message that
// opens with a block header, one hit a line starting with "(". Package
// search owns that protocol (Instruction, Marker, FoundOpen, FormatHits);
// llm, which every package that calls a model imports, does not import
// search, and TestOfflineSearchProtocol checks these words against it.
const (
	searchMarker = "SEARCH_HISTORY:"     // search.Marker's prefix, without its space
	foundOpen    = "[FOUND IN HISTORY:"  // search.FoundOpen
	foundOpenRU  = "[НАЙДЕНО В ИСТОРИИ:" // search.FoundOpenRU
)

// offlineReply builds the offline chat reply. It runs the whole memory
// loop without a model:
//   - when the newest message is a block of search hits, it answers from the
//     hit that best matches the question;
//   - otherwise it answers from what the prompt shows: the passage (a
//     sentence of a window message, a fact, a part of the anchors' key data,
//     a line of the summary, a study note) that best matches the question,
//     when it holds at least half of the question's subject words (its
//     keywords other than the words that ask for a figure: cost, price,
//     сколько, …);
//   - when nothing shown does and the prompt offers history search, it asks
//     to search, with only a SEARCH_HISTORY line;
//   - otherwise it quotes the best partial match, or says nothing matches.
//
// The first reply of a conversation (no reply before it in the prompt)
// starts with a notice that no model is configured.
func offlineReply(msgs []Message) string {
	qi := question(msgs)
	q := ""
	if qi >= 0 {
		q = strings.TrimSpace(msgs[qi].Content)
	}
	t := wording(words.Lang(q) == "ru")
	var b strings.Builder
	if firstReply(msgs) {
		b.WriteString(t.notice)
		b.WriteString("\n\n")
	}
	if q == "" {
		b.WriteString(t.noQuestion)
		return b.String()
	}
	ask := newAsk(q)
	last := msgs[len(msgs)-1]
	if last.Role == "user" && isFoundBlock(last.Content) {
		line, ok := ask.bestHit(foundLines(last.Content))
		if !ok {
			b.WriteString(t.notFound)
			return b.String()
		}
		fmt.Fprintf(&b, t.found, quote(line))
		return b.String()
	}
	best, full := ask.best(passages(msgs, qi, q))
	if !full && ask.question && searchOffered(msgs) && len(ask.kws) > 0 {
		ws := make([]string, len(ask.kws))
		for i, k := range ask.kws {
			ws[i] = k.Word
		}
		return searchMarker + " " + strings.Join(ws, " ")
	}
	if best == nil && !ask.question {
		b.WriteString(t.noted)
		return b.String()
	}
	if best == nil {
		b.WriteString(t.noMatch)
		return b.String()
	}
	b.WriteString(t.answer(*best))
	return b.String()
}

// firstReply reports whether no reply comes before the question in msgs
// (a search marker line is a step of the reply being written).
func firstReply(msgs []Message) bool {
	for _, m := range msgs {
		if m.Role == "assistant" && !strings.HasPrefix(m.Content, searchMarker) {
			return false
		}
	}
	return true
}

// question is the index of the newest user message that is not a block of
// search hits, or -1.
func question(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && !isFoundBlock(msgs[i].Content) {
			return i
		}
	}
	return -1
}

func isFoundBlock(s string) bool {
	return strings.HasPrefix(s, foundOpen) || strings.HasPrefix(s, foundOpenRU)
}

// searchOffered reports whether the system prompt teaches the marker.
func searchOffered(msgs []Message) bool {
	for _, m := range msgs {
		if m.Role == "system" && strings.Contains(m.Content, searchMarker) {
			return true
		}
	}
	return false
}

// foundLines returns the hit lines of a block of search hits, each with
// the time of its group: search.FormatHits writes a line "2006-01-02
// 15:04:" before the hits of that minute, and each hit as "(author)
// content"; a line comes back as "(2006-01-02 15:04, author) content".
func foundLines(block string) []string {
	var out []string
	at := ""
	for _, line := range strings.Split(block, "\n") {
		if t, ok := strings.CutSuffix(line, ":"); ok && isMinute(t) {
			at = t
			continue
		}
		rest, ok := strings.CutPrefix(line, "(")
		if !ok {
			continue
		}
		if at != "" {
			line = "(" + at + ", " + rest
		}
		out = append(out, line)
	}
	return out
}

// isMinute reports whether s is a time as "2006-01-02 15:04".
func isMinute(s string) bool {
	_, err := time.Parse("2006-01-02 15:04", s)
	return err == nil
}
