package llm

import (
	"strings"
	"unicode"

	"yakor/words"
)

// Where a passage the offline model can quote comes from. The prompt's
// layers arrive as text, the way any model reads them; llm does not import
// the packages that write them, and TestOfflineReadsTheLayers checks these
// openings against them.
const (
	fromWindow  = iota // a message of the window
	fromFacts          // a line of the facts block
	fromAnchors        // a part of the anchors block's DATA line
	fromSummary        // a line of the running summary
	fromNote           // a study note of the recalled long-term memory
)

// Openings of the prompt's layers the offline model reads.
var (
	factsOpen   = []string{"[FACTS to keep in mind]", "[ФАКТЫ, которые нужно помнить]"}
	dataOpen    = []string{"[DATA: ", "[ДАННЫЕ: "}
	summaryOpen = []string{"[SUMMARY of messages", "[СВОДКА сообщений"}
	memoryOpen  = "<memory-context>"
	noteOpen    = []string{"[Study note", "[Учебная заметка"}
)

// passage is one piece of what the offline model can see: a sentence of a
// message, a fact, a part of the anchors' key data, a line of the summary
// or of a study note.
type passage struct {
	from   int
	role   string // a window message's role
	text   string // what is quoted
	fields []string
}

// passages splits what the prompt shows before the question (msgs[:qi])
// into passages. The system prompt's own instructions, the question, hit
// blocks, the offline model's own replies and long-term memory other than
// study notes (examples and warnings of other conversations) are left out.
func passages(msgs []Message, qi int, q string) []passage {
	var out []passage
	add := func(from int, role, text string) {
		text = strings.TrimSpace(text)
		if text == "" || text == q {
			return
		}
		out = append(out, passage{from: from, role: role, text: text, fields: words.Fields(text)})
	}
	for _, m := range msgs[:qi] {
		content := strings.TrimSpace(m.Content)
		switch {
		case content == "" || content == q || isFoundBlock(content):
		case m.Role == "system" && hasAnyPrefix(content, summaryOpen):
			for _, line := range strings.Split(content, "\n")[1:] {
				add(fromSummary, "", strings.TrimPrefix(strings.TrimSpace(line), "- "))
			}
		case m.Role == "system" && strings.HasPrefix(content, memoryOpen):
			for _, note := range studyNotes(content) {
				add(fromNote, "", note)
			}
		case m.Role == "system":
			headPassages(content, add)
		case m.Role == "assistant" && IsOfflineReply(content):
		case m.Role == "user" || m.Role == "assistant":
			for _, s := range sentences(content) {
				add(fromWindow, m.Role, s)
			}
		}
	}
	return out
}

// headPassages reads the facts block's lines and the anchors block's DATA
// parts out of the prompt's head.
func headPassages(head string, add func(from int, role, text string)) {
	inFacts := false
	for _, line := range strings.Split(head, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case hasAnyPrefix(line, factsOpen):
			inFacts = true
		case hasAnyPrefix(line, dataOpen):
			inFacts = false
			data := strings.TrimSuffix(line[strings.Index(line, ": ")+2:], "]")
			for _, part := range strings.Split(data, "; ") {
				add(fromAnchors, "", part)
			}
		case line == "" || strings.HasPrefix(line, "["):
			inFacts = false
		case inFacts && strings.HasPrefix(line, "- "):
			add(fromFacts, "", line[2:])
		}
	}
}

// studyNotes are the lines of the study notes of a <memory-context> block:
// those under a study note's label, up to the next label.
func studyNotes(block string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "[") || strings.HasPrefix(line, "<"):
			in = hasAnyPrefix(line, noteOpen)
		case in && line != "":
			out = append(out, line)
		}
	}
	return out
}

// sentences splits a message into its lines and, within a line, its
// sentences: a '.', '!' or '?' followed by a space and a capital letter or
// a digit ends one. A line of a list or a table stays whole: unlike
// words.Sentences, which anchors' key data read fragment by fragment, ';'
// and '|' do not split, so a quoted price line keeps its items together.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		rs := []rune(line)
		start := 0
		for i := 0; i+2 < len(rs); i++ {
			if strings.ContainsRune(".!?", rs[i]) && rs[i+1] == ' ' && (unicode.IsUpper(rs[i+2]) || unicode.IsDigit(rs[i+2])) {
				out = append(out, string(rs[start:i+1]))
				start = i + 2
			}
		}
		out = append(out, string(rs[start:]))
	}
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
