package mnemos

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fences around the block of retrieved memory in a prompt.
const (
	FenceOpen  = "<memory-context>"  // opens the block
	FenceClose = "</memory-context>" // closes the block
)

// minEchoRunes is the length a line of the block needs to be worth
// removing when a reply repeats it: shorter lines ("Q: ok") are too likely
// to be said on their own.
const minEchoRunes = 20

// bullets may start a reply line that quotes a line of the block.
var bullets = []string{"- ", "* ", "> "}

// Scrubber removes an echoed memory block from a model's reply as it streams.
//
// It works in three stages that look only at the text, never at where the
// deltas were split, so the result is the same for any split:
//  1. fences: text from FenceOpen to FenceClose (any case) is dropped;
//  2. lines: a line equal, once trimmed, to a long line of the block is
//     dropped with its line break;
//  3. blank lines: line breaks right after a removal are cut to at most two
//     in a row, and to none at the start of the reply.
//
// It is not safe for concurrent use, nor for use after Flush.
type Scrubber struct {
	echoes []string // lines of the block that are removed when repeated

	// fences
	inside bool   // after FenceOpen, before FenceClose
	tail   string // undecided bytes: a possible tag start, or the end of a fenced text

	// lines
	line  string // held start of the current line
	marks []int  // offsets in line where stage 1 removed something
	free  bool   // the current line can no longer be an echo and streams

	// blank lines
	collapse bool // right after a removal: cutting line breaks
	cr       bool // a '\r' held while collapsing
	started  bool // released text holds something other than line breaks
	newlines int  // line breaks at the end of the released text

	scrubbed bool
	out      strings.Builder // text released by the current call
}

// NewScrubber returns a scrubber for a reply to a prompt that carried block
// (the whole fenced text as sent, "" when the prompt had none: then only
// fences are removed).
func NewScrubber(block string) *Scrubber {
	return &Scrubber{echoes: echoLines(block)}
}

// Feed takes the next piece of the reply and returns the text that is safe
// to release now (possibly "").
func (s *Scrubber) Feed(delta string) string {
	s.out.Reset()
	s.fences(delta, false)
	return s.out.String()
}

// Flush ends the reply and returns what was held back, scrubbed.
func (s *Scrubber) Flush() string {
	s.out.Reset()
	s.fences("", true)
	s.endLine()
	if s.cr {
		s.write("\r")
		s.cr = false
	}
	return s.out.String()
}

// Scrubbed reports whether anything was removed so far.
func (s *Scrubber) Scrubbed() bool { return s.scrubbed }

// Scrub scrubs a whole reply at once: the same result as Feed of every
// piece then Flush, for any split.
func Scrub(block, text string) string {
	s := NewScrubber(block)
	return s.Feed(text) + s.Flush()
}

// echoLines returns the trimmed lines of block, fences left out, that are
// long enough to be removed from a reply.
func echoLines(block string) []string {
	for _, tag := range []string{FenceOpen, FenceClose} {
		for i := indexFold(block, tag); i >= 0; i = indexFold(block, tag) {
			block = block[:i] + "\n" + block[i+len(tag):]
		}
	}
	var lines []string
	seen := map[string]bool{}
	for l := range strings.SplitSeq(block, "\n") {
		l = strings.TrimSpace(l)
		if utf8.RuneCountInString(l) < minEchoRunes || seen[l] {
			continue
		}
		seen[l] = true
		lines = append(lines, l)
	}
	return lines
}

// fences is stage 1: it drops fenced text and passes the rest to stage 2.
// When final, nothing is held back.
func (s *Scrubber) fences(text string, final bool) {
	text = s.tail + text
	s.tail = ""
	for text != "" {
		if s.inside {
			i := indexFold(text, FenceClose)
			if i < 0 {
				if !final {
					s.tail = text[max(0, len(text)-(len(FenceClose)-1)):]
				}
				return
			}
			text = text[i+len(FenceClose):]
			s.inside = false
			continue
		}
		i := strings.IndexByte(text, '<')
		if i < 0 {
			s.lines(text)
			return
		}
		s.lines(text[:i])
		text = text[i:]
		switch {
		case hasPrefixFold(text, FenceOpen):
			s.removed()
			s.inside = true
			text = text[len(FenceOpen):]
		case hasPrefixFold(text, FenceClose):
			s.removed()
			text = text[len(FenceClose):]
		case !final && (hasPrefixFold(FenceOpen, text) || hasPrefixFold(FenceClose, text)):
			s.tail = text // may still become a tag
			return
		default:
			s.lines("<")
			text = text[1:]
		}
	}
}

// removed notes, at the current place of stage 2's input, that stage 1
// removed something.
func (s *Scrubber) removed() {
	s.scrubbed = true
	if s.free || len(s.echoes) == 0 {
		s.collapse = true
		return
	}
	s.marks = append(s.marks, len(s.line))
}

// lines is stage 2: it drops echoed lines and passes the rest to stage 3.
func (s *Scrubber) lines(text string) {
	if len(s.echoes) == 0 {
		s.emit(text)
		return
	}
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if s.free {
			if i < 0 {
				s.emit(text)
				return
			}
			s.emit(text[:i+1])
			text = text[i+1:]
			s.free = false
			continue
		}
		if i < 0 {
			s.line += text
			if !s.mayEcho(s.line) {
				s.releaseLine()
				s.free = true
			}
			return
		}
		s.line += text[:i]
		text = text[i+1:]
		if s.isEcho(s.line) {
			s.dropLine()
		} else {
			s.releaseLine()
			s.emit("\n")
		}
	}
}

// endLine decides on the last line of the reply, which has no line break.
func (s *Scrubber) endLine() {
	if s.free {
		return
	}
	if s.isEcho(s.line) {
		s.dropLine()
	} else {
		s.releaseLine()
	}
}

// dropLine removes the held line.
func (s *Scrubber) dropLine() {
	s.line, s.marks = "", s.marks[:0]
	s.scrubbed = true
	s.collapse = true
}

// releaseLine passes the held line to stage 3, with stage 1's removals at
// their places.
func (s *Scrubber) releaseLine() {
	prev := 0
	for _, m := range s.marks {
		s.emit(s.line[prev:m])
		s.collapse = true
		prev = m
	}
	s.emit(s.line[prev:])
	s.line, s.marks = "", s.marks[:0]
}

// isEcho reports whether a whole reply line repeats a line of the block.
func (s *Scrubber) isEcho(line string) bool {
	t := strings.TrimSpace(line)
	if s.isEchoLine(t) {
		return true
	}
	for _, b := range bullets {
		if rest, ok := strings.CutPrefix(t, b); ok {
			return s.isEchoLine(strings.TrimLeftFunc(rest, unicode.IsSpace))
		}
	}
	return false
}

func (s *Scrubber) isEchoLine(t string) bool { return slices.Contains(s.echoes, t) }

// mayEcho reports whether the start of a line may still become an echo.
// It may answer yes too often, never no too early: once no, no longer
// start of the line is an echo either.
func (s *Scrubber) mayEcho(line string) bool {
	q := strings.TrimLeftFunc(dropPartialRune(line), unicode.IsSpace)
	if s.startsEcho(q) {
		return true
	}
	for _, b := range bullets {
		if q == b[:1] {
			return true
		}
		if rest, ok := strings.CutPrefix(q, b); ok {
			return s.startsEcho(strings.TrimLeftFunc(rest, unicode.IsSpace))
		}
	}
	return false
}

// startsEcho reports whether q is the start of an echo-able line followed
// by any white space.
func (s *Scrubber) startsEcho(q string) bool {
	for _, e := range s.echoes {
		if strings.HasPrefix(e, q) {
			return true
		}
		if rest, ok := strings.CutPrefix(q, e); ok && strings.TrimLeftFunc(rest, unicode.IsSpace) == "" {
			return true
		}
	}
	return false
}

// emit is stage 3: it cuts the line breaks that follow a removal and
// releases the rest.
func (s *Scrubber) emit(text string) {
	for s.collapse && text != "" {
		switch text[0] {
		case '\n':
			limit := 2
			if !s.started {
				limit = 0
			}
			if s.newlines < limit {
				if s.cr {
					s.write("\r")
				}
				s.write("\n")
			}
			s.cr = false
			text = text[1:]
		case '\r':
			if !s.cr {
				s.cr = true
				text = text[1:]
				continue
			}
			// The held '\r' was not part of a line break.
			s.collapse, s.cr = false, false
			s.write("\r")
		default:
			s.collapse = false
			if s.cr {
				s.cr = false
				s.write("\r")
			}
		}
	}
	s.write(text)
}

// write releases text and keeps count of the line breaks at its end.
func (s *Scrubber) write(text string) {
	if text == "" {
		return
	}
	s.out.WriteString(text)
	k := len(text) - 1
	for k >= 0 && (text[k] == '\n' || text[k] == '\r') {
		k--
	}
	if k < 0 {
		s.newlines += strings.Count(text, "\n")
		return
	}
	s.started = true
	s.newlines = strings.Count(text[k+1:], "\n")
}

// dropPartialRune cuts an unfinished UTF-8 sequence off the end of s.
func dropPartialRune(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lowerASCII(s[i]) != lowerASCII(prefix[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// indexFold returns the index of the first tag in s, ignoring ASCII case,
// or -1. The tag must start with '<'.
func indexFold(s, tag string) int {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return -1
		}
		i += j
		if hasPrefixFold(s[i:], tag) {
			return i
		}
		i++
	}
	return -1
}
