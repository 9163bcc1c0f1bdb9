package llm

import (
	"fmt"
	"strings"

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
//     hit that shares the most keywords with the question;
//   - when the prompt offers history search, the message is a question
//     (it has a question mark) and half or more of its keywords appear in
//     none of the earlier messages, it asks to search, with only a
//     SEARCH_HISTORY line;
//   - otherwise it quotes the earlier message that shares the most keywords
//     with the question (ties go to the newest).
//
// Every answer starts with a plain notice that no model is configured.
func offlineReply(msgs []Message) string {
	qi := question(msgs)
	q := ""
	if qi >= 0 {
		q = strings.TrimSpace(msgs[qi].Content)
	}
	t := wording(words.Lang(q) == "ru")
	kws := words.Keywords(q, nil)

	var b strings.Builder
	b.WriteString(t.notice)
	b.WriteString("\n\n")
	if q == "" {
		b.WriteString(t.noQuestion)
		return b.String()
	}
	last := msgs[len(msgs)-1]
	if last.Role == "user" && isFoundBlock(last.Content) {
		line, ok := bestLine(kws, foundLines(last.Content))
		if !ok {
			b.WriteString(t.notFound)
			return b.String()
		}
		fmt.Fprintf(&b, t.found, quote(line))
		return b.String()
	}
	if searchOffered(msgs) && len(kws) > 0 && strings.ContainsAny(q, "?？") {
		if missing := absent(kws, msgs[:qi]); 2*missing >= len(kws) {
			ws := make([]string, len(kws))
			for i, k := range kws {
				ws[i] = k.Word
			}
			return searchMarker + " " + strings.Join(ws, " ")
		}
	}
	best, bestScore := -1, 0
	for i := range qi {
		m := msgs[i]
		content := strings.TrimSpace(m.Content)
		if m.Role == "system" || content == "" || content == q || isFoundBlock(content) {
			continue
		}
		if s := overlap(kws, content); s > 0 && s >= bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		b.WriteString(t.noMatch)
		return b.String()
	}
	fmt.Fprintf(&b, t.quote, t.role(msgs[best].Role), quote(msgs[best].Content))
	return b.String()
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

// absent counts the keywords that no earlier non-system message contains.
func absent(kws []words.Keyword, earlier []Message) int {
	var folded []string
	for _, m := range earlier {
		if m.Role != "system" {
			folded = append(folded, words.Fold(m.Content))
		}
	}
	n := 0
	for _, k := range kws {
		found := false
		for _, f := range folded {
			if strings.Contains(f, k.Stem) {
				found = true
				break
			}
		}
		if !found {
			n++
		}
	}
	return n
}

// overlap counts the keywords whose stem the text contains.
func overlap(kws []words.Keyword, text string) int {
	f := words.Fold(text)
	n := 0
	for _, k := range kws {
		if strings.Contains(f, k.Stem) {
			n++
		}
	}
	return n
}

// foundLines returns the hit lines of a block of search hits.
func foundLines(block string) []string {
	var out []string
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "(") {
			out = append(out, line)
		}
	}
	return out
}

// bestLine picks the line sharing the most keywords (ties: the newest).
func bestLine(kws []words.Keyword, lines []string) (string, bool) {
	best, bestScore := "", -1
	for _, l := range lines {
		if s := overlap(kws, l); s >= bestScore {
			best, bestScore = l, s
		}
	}
	return best, bestScore >= 0
}
