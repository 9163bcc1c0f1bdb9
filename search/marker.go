package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQueryChars is the most characters (runes) a marker's query may have.
const MaxQueryChars = 200

const (
	// markerWord is the marker's keyword, matched ASCII case-insensitively.
	markerWord = "search_history"
	// markerMaxIndent is the most spaces or tabs a marker line may start with.
	markerMaxIndent = 8
	// markerMaxLine bounds a marker line in bytes, without its line ending,
	// so that a parser never holds more than one line. It leaves room for
	// MaxQueryChars runes of 4 bytes, delimiters and about 190 blanks.
	markerMaxLine = 1024
)

// Piece is one part of the model's output: text for the user, or a marker's query.
type Piece struct {
	Text  string // text to release to the user; "" when Query is set
	Query string // the query of a marker line; "" for text
}

// Parser splits a streamed model output into text and marker queries, so
// that a marker line never reaches the user, not even in part, while text
// is held back by at most one line. Create one per stream with NewParser;
// a Parser is not safe for concurrent use.
type Parser struct {
	// held is what has been fed but not yet returned: the start of the
	// current line while it could be a marker line, or, in the middle of a
	// text line, an incomplete UTF-8 sequence at the end of the last chunk.
	held string
	// midLine says the current line is certainly text.
	midLine bool
}

// NewParser returns a parser at the start of a stream.
func NewParser() *Parser { return &Parser{} }

// Feed consumes the next chunk (any bytes, split anywhere, even inside a
// UTF-8 sequence) and returns the pieces that are now certain, in order,
// adjacent text merged. Text is released as soon as it can no longer be
// the start of a marker line; an incomplete UTF-8 sequence at the end of a
// chunk waits for the next chunk.
func (p *Parser) Feed(chunk string) []Piece {
	var out []Piece
	data := p.held + chunk
	p.held = ""
	for data != "" {
		nl := strings.IndexByte(data, '\n')
		switch {
		case p.midLine && nl >= 0:
			out = appendText(out, data[:nl+1])
			data = data[nl+1:]
			p.midLine = false
		case p.midLine:
			n := len(data) - incompleteTail(data)
			out = appendText(out, data[:n])
			p.held = data[n:]
			return out
		case nl >= 0:
			out = appendLine(out, data[:nl+1])
			data = data[nl+1:]
		case couldBeMarker(data):
			p.held = data
			return out
		default:
			p.midLine = true
		}
	}
	return out
}

// Flush ends the stream and returns whatever is held (a final line without
// a newline may be a marker). The parser is then ready for a new stream.
func (p *Parser) Flush() []Piece {
	data, midLine := p.held, p.midLine
	*p = Parser{}
	if midLine {
		return appendText(nil, data)
	}
	return appendLine(nil, data)
}

// ParseMarker reports whether line (without its line ending, "\n" or
// "\r\n") is a marker line and returns its query. A marker line is at most
// 8 blanks (spaces or tabs), the word SEARCH_HISTORY in any ASCII case,
// optional blanks, a colon, optional blanks, the query and optional
// blanks, 1024 bytes at most. The query may be wrapped in one pair of
// matching delimiters, "…", '…', `…`, «…» or “…”, which are stripped, as
// are blanks inside them. What remains must be non-empty valid UTF-8
// without control characters, at most MaxQueryChars runes. The parser
// does not sanitize the query any further.
func ParseMarker(line string) (query string, ok bool) {
	if len(line) > markerMaxLine {
		return "", false
	}
	rest := strings.TrimLeft(line, " \t")
	if len(line)-len(rest) > markerMaxIndent || len(rest) < len(markerWord) || !hasFoldPrefix(rest, markerWord) {
		return "", false
	}
	rest = strings.TrimLeft(rest[len(markerWord):], " \t")
	if !strings.HasPrefix(rest, ":") {
		return "", false
	}
	q := strings.Trim(unwrapQuery(strings.Trim(rest[1:], " \t")), " \t")
	if q == "" || !utf8.ValidString(q) || utf8.RuneCountInString(q) > MaxQueryChars ||
		strings.ContainsFunc(q, unicode.IsControl) {
		return "", false
	}
	return q, true
}

// Strip removes every marker line from a complete text (used on stored
// text); it equals feeding text whole and joining the Text pieces.
func Strip(text string) string {
	p := NewParser()
	var b strings.Builder
	for _, pc := range append(p.Feed(text), p.Flush()...) {
		b.WriteString(pc.Text)
	}
	return b.String()
}

// couldBeMarker reports whether s, the start of a line without its
// newline, could still grow into a marker line: blanks, a prefix of the
// marker word, and once the word is whole, blanks and a colon; after the
// colon, anything up to the longest marker line (plus a '\r').
func couldBeMarker(s string) bool {
	if len(s) > markerMaxLine+1 {
		return false
	}
	rest := strings.TrimLeft(s, " \t")
	if len(s)-len(rest) > markerMaxIndent {
		return false
	}
	n := min(len(rest), len(markerWord))
	if !hasFoldPrefix(rest, markerWord[:n]) {
		return false
	}
	rest = strings.TrimLeft(rest[n:], " \t")
	return n < len(markerWord) || rest == "" || rest[0] == ':'
}

// appendLine appends one line, with its "\n" if it has one, as a query if
// it is a marker line and as text otherwise.
func appendLine(out []Piece, line string) []Piece {
	content := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if q, ok := ParseMarker(content); ok {
		return append(out, Piece{Query: q})
	}
	return appendText(out, line)
}

// appendText appends text, merged into the last piece if that is text.
func appendText(out []Piece, text string) []Piece {
	switch {
	case text == "":
		return out
	case len(out) > 0 && out[len(out)-1].Query == "":
		out[len(out)-1].Text += text
		return out
	}
	return append(out, Piece{Text: text})
}

// incompleteTail returns the length of the UTF-8 sequence that s ends in
// the middle of, one that the next bytes may still complete; 0 if none.
func incompleteTail(s string) int {
	for i := len(s) - 1; i >= 0 && i > len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if utf8.FullRuneInString(s[i:]) {
				return 0
			}
			return len(s) - i
		}
	}
	return 0
}

// unwrapQuery strips one pair of matching delimiters around q.
func unwrapQuery(q string) string {
	for _, d := range [...][2]string{{`"`, `"`}, {`'`, `'`}, {"`", "`"}, {"«", "»"}, {"“", "”"}} {
		if len(q) >= len(d[0])+len(d[1]) && strings.HasPrefix(q, d[0]) && strings.HasSuffix(q, d[1]) {
			return q[len(d[0]) : len(q)-len(d[1])]
		}
	}
	return q
}

// hasFoldPrefix reports whether s starts with prefix, a lower-case ASCII
// string, ignoring ASCII case only (no Unicode folding: "ſ" is not "s").
func hasFoldPrefix(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}
