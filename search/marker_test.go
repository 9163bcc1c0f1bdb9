package search_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"yakor/search"
)

// maxHeld is the most bytes a parser may hold: the longest marker line
// (1024 bytes) plus the '\r' of a "\r\n" ending.
const maxHeld = 1025

func text(s string) search.Piece  { return search.Piece{Text: s} }
func query(q string) search.Piece { return search.Piece{Query: q} }

// run feeds chunks to a new parser, flushes it and returns all pieces,
// adjacent text merged across calls. It checks that each call returns
// well-formed pieces with adjacent text merged.
func run(tb testing.TB, chunks ...string) []search.Piece {
	tb.Helper()
	p := search.NewParser()
	var out []search.Piece
	for _, c := range chunks {
		out = merge(out, checked(tb, p.Feed(c)))
	}
	return merge(out, checked(tb, p.Flush()))
}

func checked(tb testing.TB, ps []search.Piece) []search.Piece {
	tb.Helper()
	for i, pc := range ps {
		if (pc.Text == "") == (pc.Query == "") {
			tb.Fatalf("piece %+v: want exactly one of Text and Query", pc)
		}
		if pc.Query == "" && i > 0 && ps[i-1].Query == "" {
			tb.Fatalf("adjacent text pieces not merged: %q", ps)
		}
	}
	return ps
}

func merge(out, ps []search.Piece) []search.Piece {
	for _, pc := range ps {
		if pc.Query == "" && len(out) > 0 && out[len(out)-1].Query == "" {
			out[len(out)-1].Text += pc.Text
			continue
		}
		out = append(out, pc)
	}
	return out
}

// bytesOf splits s into one-byte chunks.
func bytesOf(s string) []string {
	out := make([]string, len(s))
	for i := range len(s) {
		out[i] = s[i : i+1]
	}
	return out
}

func joinText(ps []search.Piece) string {
	var b strings.Builder
	for _, pc := range ps {
		b.WriteString(pc.Text)
	}
	return b.String()
}

func TestParser(t *testing.T) {
	ya200 := strings.Repeat("я", search.MaxQueryChars)
	tests := []struct {
		name  string
		input string
		want  []search.Piece
	}{
		{"empty", "", nil},
		{"plain text", "Hello, world.\nSecond line\n", []search.Piece{text("Hello, world.\nSecond line\n")}},
		{"blank lines", "\n\n \n", []search.Piece{text("\n\n \n")}},
		{"marker alone", "SEARCH_HISTORY: sofa price\n", []search.Piece{query("sofa price")}},
		{"marker after text", "Let me check.\nSEARCH_HISTORY: sofa\n", []search.Piece{text("Let me check.\n"), query("sofa")}},
		{"text after marker", "SEARCH_HISTORY: sofa\nOK.\n", []search.Piece{query("sofa"), text("OK.\n")}},
		{"empty line after marker", "SEARCH_HISTORY: sofa\n\n", []search.Piece{query("sofa"), text("\n")}},
		{"lower case", "search_history: sofa\n", []search.Piece{query("sofa")}},
		{"mixed case", "Search_History: sofa\n", []search.Piece{query("sofa")}},
		{"no spaces", "SEARCH_HISTORY:sofa", []search.Piece{query("sofa")}},
		{"spaces around colon", "SEARCH_HISTORY  :   sofa  \n", []search.Piece{query("sofa")}},
		{"tabs around colon", "SEARCH_HISTORY\t:\tsofa\t\n", []search.Piece{query("sofa")}},
		{"double quotes", `SEARCH_HISTORY: "sofa price"`, []search.Piece{query("sofa price")}},
		{"single quotes", `SEARCH_HISTORY: 'sofa'`, []search.Piece{query("sofa")}},
		{"backticks", "SEARCH_HISTORY: `sofa`", []search.Piece{query("sofa")}},
		{"guillemets", "SEARCH_HISTORY: «диван»", []search.Piece{query("диван")}},
		{"curly quotes", "SEARCH_HISTORY: “sofa”", []search.Piece{query("sofa")}},
		{"blanks inside quotes", `SEARCH_HISTORY: " sofa "`, []search.Piece{query("sofa")}},
		{"one pair only", `SEARCH_HISTORY: ""sofa""`, []search.Piece{query(`"sofa"`)}},
		{"unbalanced quote", `SEARCH_HISTORY: "abc`, []search.Piece{query(`"abc`)}},
		{"mismatched delimiters", `SEARCH_HISTORY: «abc"`, []search.Piece{query(`«abc"`)}},
		{"lone quote", `SEARCH_HISTORY: "`, []search.Piece{query(`"`)}},
		{"empty query", "SEARCH_HISTORY:\n", []search.Piece{text("SEARCH_HISTORY:\n")}},
		{"blank query", "SEARCH_HISTORY:  \t \n", []search.Piece{text("SEARCH_HISTORY:  \t \n")}},
		{"empty quotes", `SEARCH_HISTORY: ""`, []search.Piece{text(`SEARCH_HISTORY: ""`)}},
		{"blank guillemets", "SEARCH_HISTORY: «  »\n", []search.Piece{text("SEARCH_HISTORY: «  »\n")}},
		{"word alone", "SEARCH_HISTORY\n", []search.Piece{text("SEARCH_HISTORY\n")}},
		{"query of 200 runes", "SEARCH_HISTORY: " + ya200 + "\n", []search.Piece{query(ya200)}},
		{"query of 200 runes quoted", "SEARCH_HISTORY: «" + ya200 + "»\n", []search.Piece{query(ya200)}},
		{"query of 201 runes", "SEARCH_HISTORY: " + ya200 + "я\n", []search.Piece{text("SEARCH_HISTORY: " + ya200 + "я\n")}},
		{"line of 1024 bytes", "SEARCH_HISTORY:" + strings.Repeat(" ", 1008) + "q\r\n", []search.Piece{query("q")}},
		{"line of 1025 bytes", "SEARCH_HISTORY:" + strings.Repeat(" ", 1009) + "q\n", []search.Piece{text("SEARCH_HISTORY:" + strings.Repeat(" ", 1009) + "q\n")}},
		{"word suffix", "SEARCH_HISTORYX: q\n", []search.Piece{text("SEARCH_HISTORYX: q\n")}},
		{"word prefix", "xSEARCH_HISTORY: q\n", []search.Piece{text("xSEARCH_HISTORY: q\n")}},
		{"word cut", "SEARCH_HISTOR: q\n", []search.Piece{text("SEARCH_HISTOR: q\n")}},
		{"no Unicode folding", "ſearch_history: q\n", []search.Piece{text("ſearch_history: q\n")}},
		{"middle of line", "I will SEARCH_HISTORY: q now\n", []search.Piece{text("I will SEARCH_HISTORY: q now\n")}},
		{"after text on the line", "Look: SEARCH_HISTORY: q\n", []search.Piece{text("Look: SEARCH_HISTORY: q\n")}},
		{"CRLF", "Hi\r\nSEARCH_HISTORY: sofa\r\nBye\r\n", []search.Piece{text("Hi\r\n"), query("sofa"), text("Bye\r\n")}},
		{"CR at end of stream", "SEARCH_HISTORY: sofa\r", []search.Piece{query("sofa")}},
		{"two CRs", "SEARCH_HISTORY: sofa\r\r\n", []search.Piece{text("SEARCH_HISTORY: sofa\r\r\n")}},
		{"leading whitespace", " \t SEARCH_HISTORY: sofa\n", []search.Piece{query("sofa")}},
		{"8 leading spaces", "        SEARCH_HISTORY: sofa\n", []search.Piece{query("sofa")}},
		{"9 leading spaces", "         SEARCH_HISTORY: sofa\n", []search.Piece{text("         SEARCH_HISTORY: sofa\n")}},
		{"no newline at end", "Checking.\nSEARCH_HISTORY: sofa", []search.Piece{text("Checking.\n"), query("sofa")}},
		{"two markers", "SEARCH_HISTORY: a\nSEARCH_HISTORY: b\n", []search.Piece{query("a"), query("b")}},
		{"markers and text", "x\nSEARCH_HISTORY: a\ny\nz\nsearch_history: b\n", []search.Piece{text("x\n"), query("a"), text("y\nz\n"), query("b")}},
		{"Cyrillic query", "SEARCH_HISTORY: цена дивана ЛДСП\n", []search.Piece{query("цена дивана ЛДСП")}},
		{"not sanitized", "SEARCH_HISTORY: %' OR 1=1 --\n", []search.Piece{query("%' OR 1=1 --")}},
		{"control character", "SEARCH_HISTORY: a\x00b\n", []search.Piece{text("SEARCH_HISTORY: a\x00b\n")}},
		{"tab inside query", "SEARCH_HISTORY: a\tb\n", []search.Piece{text("SEARCH_HISTORY: a\tb\n")}},
		{"invalid UTF-8", "SEARCH_HISTORY: a\xffb\n", []search.Piece{text("SEARCH_HISTORY: a\xffb\n")}},
		{"invalid bytes kept", "\xff\xe2\x82\n\xe2", []search.Piece{text("\xff\xe2\x82\n\xe2")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, run(t, tt.input)); diff != "" {
				t.Errorf("whole input (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, run(t, bytesOf(tt.input)...)); diff != "" {
				t.Errorf("byte by byte (-want +got):\n%s", diff)
			}
			if got, want := search.Strip(tt.input), joinText(tt.want); got != want {
				t.Errorf("Strip = %q, want %q", got, want)
			}
		})
	}
}

func TestParseMarker(t *testing.T) {
	tests := []struct {
		line  string
		query string
		ok    bool
	}{
		{"SEARCH_HISTORY: sofa", "sofa", true},
		{"\tsearch_history :  `sofa`  ", "sofa", true},
		{"SEARCH_HISTORY: ", "", false},
		{"SEARCH_HISTORY sofa", "", false},
		{"SEARCH_HISTORY: sofa\n", "", false},
		{"text", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		q, ok := search.ParseMarker(tt.line)
		if q != tt.query || ok != tt.ok {
			t.Errorf("ParseMarker(%q) = %q, %v; want %q, %v", tt.line, q, ok, tt.query, tt.ok)
		}
	}
}

// TestParserLatency feeds replies one rune at a time and bounds how many
// bytes the parser holds back after each rune.
func TestParserLatency(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		maxHeld int
	}{
		{"ordinary lines", "Hello there.\nThe price is 10 €.\n— dash\nЦена: 5\n1. item\n", 0},
		{"Sure", "Sure, here it is.\nSo be it.\nsun\n", 1},               // "S" waits, "Su" goes
		{"search words", "search the docs\nSearch_hist is not it\n", 11}, // "Search_hist" waits for " "
		{"indented", "    indented code\n\tTabbed\n", 4},
		{"word then no colon", "SEARCH_HISTORY is a marker\n", len("SEARCH_HISTORY ")},
		{"too long to be a marker", "SEARCH_HISTORY: " + strings.Repeat("a", 2000) + "\n", maxHeld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := search.NewParser()
			fed, out := 0, 0
			for i, r := range tt.input {
				s := string(r)
				fed += len(s)
				for _, pc := range p.Feed(s) {
					if pc.Query != "" {
						t.Fatalf("unexpected query %q", pc.Query)
					}
					out += len(pc.Text)
				}
				if held := fed - out; held > tt.maxHeld {
					t.Fatalf("after %q holds %d bytes, want at most %d", tt.input[:i+len(s)], held, tt.maxHeld)
				}
				if r == '\n' && fed != out {
					t.Fatalf("after %q holds %d bytes at a line end", tt.input[:i+len(s)], fed-out)
				}
			}
		})
	}

	t.Run("marker waits for its newline", func(t *testing.T) {
		p := search.NewParser()
		for _, r := range "SEARCH_HISTORY: sofa" {
			if got := p.Feed(string(r)); got != nil {
				t.Fatalf("Feed(%q) = %v, want nothing", r, got)
			}
		}
		if diff := cmp.Diff([]search.Piece{query("sofa")}, p.Feed("\n")); diff != "" {
			t.Errorf("at newline (-want +got):\n%s", diff)
		}
	})
}

// TestParserChunking checks that any split of the input, also inside UTF-8
// sequences, gives the same pieces as the whole input, and that text of a
// valid UTF-8 input is never released with a partial sequence.
func TestParserChunking(t *testing.T) {
	inputs := []string{
		"Hello, world.\nSEARCH_HISTORY: «цена дивана»\nЦена — 10 €.\n",
		"Sure!\r\n  search_history : “sofa”\r\nsearch results\r\nSEARCH_HISTORY: q",
		"SEARCH_HISTORYX: q\nSEARCH_HISTORY:\n\n\nSEARCH_HISTORY: 日本語\n🙂 ok",
		"SEARCH_HISTORY: " + strings.Repeat("я", 300) + "\nSEARCH_HISTORY: a\xffb\n\xe2\x82",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, input := range inputs {
		want := run(t, input)
		for range 300 {
			var chunks []string
			for rest := input; rest != ""; {
				n := min(len(rest), rng.IntN(8))
				chunks, rest = append(chunks, rest[:n]), rest[n:]
			}
			p := search.NewParser()
			var got []search.Piece
			for _, c := range chunks {
				got = append(got, checked(t, p.Feed(c))...)
			}
			got = append(got, checked(t, p.Flush())...)
			for _, pc := range got {
				if utf8.ValidString(input) && !utf8.ValidString(pc.Text) {
					t.Fatalf("chunks %q: released a partial UTF-8 sequence in %q", chunks, pc.Text)
				}
			}
			if diff := cmp.Diff(want, merge(nil, got)); diff != "" {
				t.Fatalf("chunks %q (-whole +chunked):\n%s", chunks, diff)
			}
		}
	}
}

// reference parses a whole input independently of the streaming code: it
// drops the lines for which ParseMarker is true and returns the rest, the
// queries and the byte length of each marker line with its newline.
func reference(input string) (rest string, queries []string, markerLens []int) {
	var b strings.Builder
	lines := strings.Split(input, "\n")
	for i, line := range lines {
		full := line
		if i < len(lines)-1 {
			full += "\n"
		}
		if q, ok := search.ParseMarker(strings.TrimSuffix(line, "\r")); ok {
			queries = append(queries, q)
			markerLens = append(markerLens, len(full))
			continue
		}
		b.WriteString(full)
	}
	return b.String(), queries, markerLens
}

func FuzzParser(f *testing.F) {
	for _, s := range []string{
		"",
		"Hello\nSEARCH_HISTORY: sofa\nBye\n",
		"search_history : «цена»\r\n",
		"  Search_History:`q`",
		"SEARCH_HISTORY: \"abc\nSEARCH_HISTORYX: q\n",
		"Sure\nSEARCH_HISTORY: \xe2\x82\xac\xff\n\xe2\x82",
		"SEARCH_HISTORY: " + strings.Repeat("я", 201) + "\n",
	} {
		f.Add([]byte(s), int64(len(s)))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed int64) {
		input := string(data)
		wantText, wantQueries, markerLens := reference(input)
		valid := utf8.ValidString(input)

		rng := rand.New(rand.NewPCG(uint64(seed), 0))
		maxChunk := 1 + int(uint64(seed)%16)
		p := search.NewParser()
		var got strings.Builder
		var queries []string
		consumed := 0 // bytes of input returned as text or as marker lines
		check := func(ps []search.Piece) {
			for _, pc := range checked(t, ps) {
				switch {
				case pc.Query != "":
					if len(queries) == len(markerLens) {
						t.Fatalf("extra query %q", pc.Query)
					}
					consumed += markerLens[len(queries)]
					queries = append(queries, pc.Query)
				default:
					if valid && !utf8.ValidString(pc.Text) {
						t.Fatalf("released a partial UTF-8 sequence: %q", pc.Text)
					}
					consumed += len(pc.Text)
					got.WriteString(pc.Text)
				}
			}
		}
		fed := 0
		for rest := input; rest != ""; {
			n := min(len(rest), rng.IntN(maxChunk+1))
			check(p.Feed(rest[:n]))
			fed, rest = fed+n, rest[n:]
			if fed-consumed > maxHeld {
				t.Fatalf("holds %d bytes after %d fed", fed-consumed, fed)
			}
		}
		check(p.Flush())

		if got.String() != wantText {
			t.Errorf("text = %q, want %q", got.String(), wantText)
		}
		if s := search.Strip(input); s != got.String() {
			t.Errorf("Strip = %q, streamed %q", s, got.String())
		}
		if consumed != len(input) {
			t.Errorf("accounted for %d bytes of %d", consumed, len(input))
		}
		if diff := cmp.Diff(wantQueries, queries); diff != "" {
			t.Errorf("queries (-reference +streamed):\n%s", diff)
		}
		var whole []string
		for _, pc := range run(t, input) {
			if pc.Query != "" {
				whole = append(whole, pc.Query)
			}
		}
		if diff := cmp.Diff(queries, whole); diff != "" {
			t.Errorf("queries (-streamed +whole):\n%s", diff)
		}
		for line := range strings.SplitSeq(got.String(), "\n") {
			if q, ok := search.ParseMarker(strings.TrimSuffix(line, "\r")); ok {
				t.Fatalf("released marker line %q (query %q)", line, q)
			}
		}
	})
}
