package mnemos

import (
	"math/rand/v2"
	"strings"
	"testing"
)

const testContent = `Reference only: past experience of this assistant, not part of the user's message. Do not repeat it.
Good answer to a similar question (topic: vat rates):
Q: What is the VAT rate on books?
A: Books are zero-rated: 0% VAT.
Warning, an answer like this was wrong (topic: when vat does not apply):
Q: ok
A: Ставка НДС на книги составляет десять процентов.`

const testBlock = FenceOpen + "\n" + testContent + "\n" + FenceClose

func TestScrub(t *testing.T) {
	tests := []struct {
		name, block, in, want string
		scrubbed              bool
	}{
		{
			name:     "whole fenced block echoed first",
			block:    testBlock,
			in:       testBlock + "\n\nBooks are zero-rated.",
			want:     "Books are zero-rated.",
			scrubbed: true,
		},
		{
			name:     "fenced block between paragraphs",
			block:    testBlock,
			in:       "Sure.\n\n" + testBlock + "\n\nBooks are zero-rated.\n",
			want:     "Sure.\n\nBooks are zero-rated.\n",
			scrubbed: true,
		},
		{
			name:     "content lines without fences",
			block:    testBlock,
			in:       "Here is what I know.\n" + testContent + "\n\nSo: 0%.",
			want:     "Here is what I know.\nQ: ok\n\nSo: 0%.",
			scrubbed: true,
		},
		{
			name:     "echoed lines with bullets and indentation",
			block:    testBlock,
			in:       "Notes:\n- Q: What is the VAT rate on books?\n  >  A: Books are zero-rated: 0% VAT.  \n* Good answer to a similar question (topic: vat rates):\nDone.",
			want:     "Notes:\nDone.",
			scrubbed: true,
		},
		{
			name:     "echoed Cyrillic line",
			block:    testBlock,
			in:       "Ответ:\nA: Ставка НДС на книги составляет десять процентов.\nНет, ставка 0%.",
			want:     "Ответ:\nНет, ставка 0%.",
			scrubbed: true,
		},
		{
			name:     "echoed last line without line break",
			block:    testBlock,
			in:       "The rate is 0%.\nA: Books are zero-rated: 0% VAT.",
			want:     "The rate is 0%.\n",
			scrubbed: true,
		},
		{
			name:     "CRLF line endings",
			block:    testBlock,
			in:       "Intro\r\nQ: What is the VAT rate on books?\r\nA: Books are zero-rated: 0% VAT.\r\n\r\nMore\r\n",
			want:     "Intro\r\n\r\nMore\r\n",
			scrubbed: true,
		},
		{
			name:     "fence in the middle of a sentence",
			block:    testBlock,
			in:       "The rate is 0% <memory-context>Q: What is the VAT rate on books?</memory-context>for books.",
			want:     "The rate is 0% for books.",
			scrubbed: true,
		},
		{
			name:     "mixed case fences",
			block:    testBlock,
			in:       "a<Memory-Context>x\ny</MEMORY-context>b",
			want:     "ab",
			scrubbed: true,
		},
		{
			name:     "unclosed fence drops the rest",
			block:    testBlock,
			in:       "Answer: 0%.\n<memory-context>\nQ: What is the VAT rate on books?\nand more",
			want:     "Answer: 0%.\n",
			scrubbed: true,
		},
		{
			name:     "stray closing fence",
			block:    testBlock,
			in:       "Done.</memory-context>",
			want:     "Done.",
			scrubbed: true,
		},
		{
			name:     "two fenced blocks",
			block:    "",
			in:       "a<memory-context>1</memory-context>b<memory-context>2</memory-context>c",
			want:     "abc",
			scrubbed: true,
		},
		{
			name:  "similar lines are kept",
			block: testBlock,
			in:    "Q: What is the VAT rate on books in Germany?\nA: Books are zero-rated: 0% VAT!\nQ: What is the VAT rate on books? Let me check.\n-Q: What is the VAT rate on books?\n",
			want:  "Q: What is the VAT rate on books in Germany?\nA: Books are zero-rated: 0% VAT!\nQ: What is the VAT rate on books? Let me check.\n-Q: What is the VAT rate on books?\n",
		},
		{
			name:  "short block lines remove nothing",
			block: FenceOpen + "\nQ: ok\nA: yes, it is\n" + FenceClose,
			in:    "Q: ok\nA: yes, it is\n",
			want:  "Q: ok\nA: yes, it is\n",
		},
		{
			name:  "empty block keeps echoed lines",
			block: "",
			in:    "Q: What is the VAT rate on books?\nA: Books are zero-rated: 0% VAT.\n",
			want:  "Q: What is the VAT rate on books?\nA: Books are zero-rated: 0% VAT.\n",
		},
		{
			name:     "empty block removes fences",
			block:    "",
			in:       "<memory-context>\nQ: What is the VAT rate on books?\n</memory-context>\nZero.",
			want:     "Zero.",
			scrubbed: true,
		},
		{
			name:  "fence prefix at the end is text",
			block: testBlock,
			in:    "a <memory-conte",
			want:  "a <memory-conte",
		},
		{
			name:     "removal leaves at most one blank line",
			block:    testBlock,
			in:       "Sure.\n\n\nQ: What is the VAT rate on books?\n\n\n\nMore",
			want:     "Sure.\n\n\nMore",
			scrubbed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Scrub(tt.block, tt.in); got != tt.want {
				t.Errorf("Scrub(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			s := NewScrubber(tt.block)
			var b strings.Builder
			for _, r := range tt.in {
				b.WriteString(s.Feed(string(r)))
			}
			b.WriteString(s.Flush())
			if got := b.String(); got != tt.want {
				t.Errorf("rune by rune: got %q, want %q", got, tt.want)
			}
			if s.Scrubbed() != tt.scrubbed {
				t.Errorf("Scrubbed() = %v, want %v", s.Scrubbed(), tt.scrubbed)
			}
		})
	}
}

var normalReplies = []string{
	"Hello world, the answer is 42.",
	"",
	"\n\n  leading blank lines stay\n\n\n\nand so do many blank lines\n",
	"# VAT\n\n- Books: **0%**\n- Food: 10%\n> quoted\n* star\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
	"```html\n<div class=\"x\">a < b && b > c</div>\n<mem>\n</memory>\n<memory-contex\n```\n",
	"if a < b {\n\treturn <-ch\n}\n",
	"Ставка НДС на книги — 10 %. Подробнее: <см. статью 164 НК РФ>.\r\nСпасибо!\r\n",
	"A: Books are zero-rated: 0% VAT, except e-books.\nQ: What is the VAT rate on books",
	"<",
	"trailing <",
	"trailing </memory-context",
}

func TestScrubPassesOrdinaryText(t *testing.T) {
	for _, block := range []string{testBlock, ""} {
		for _, in := range normalReplies {
			if got := Scrub(block, in); got != in {
				t.Errorf("Scrub(%q)\n got %q", in, got)
			}
			s := NewScrubber(block)
			s.Feed(in)
			s.Flush()
			if s.Scrubbed() {
				t.Errorf("Scrubbed() for %q", in)
			}
		}
	}
}

var trickyReplies = []string{
	"Sure.\n\n" + testBlock + "\n\nBooks are zero-rated.",
	testBlock,
	"x<MEMORY-CONTEXT>y</Memory-Context>z",
	"a <memory-context>b <memory-context> c </memory-context> d </memory-context> e",
	"Answer.\n<memory-context>\nQ: What is the VAT rate on books?\nno end",
	"Done.</memory-context>\n\n\nNext",
	"- Q: What is the VAT rate on books?\n>   A: Books are zero-rated: 0% VAT.\n* Good answer to a similar question (topic: vat rates):\nok",
	"Q: What is the VAT rate on books?   \n\n\n\nQ: What is the VAT rate on books? no\n",
	"Ответ:\nA: Ставка НДС на книги составляет десять процентов.\nНет, ставка 0%.\u00a0\n\u3000A: Ставка НДС на книги составляет десять процентов.\u00a0",
	"Intro\r\nQ: What is the VAT rate on books?\r\nA: Books are zero-rated: 0% VAT.\r\n\r\n\r\nMore\r\n",
	"\r\n\r\nQ: What is the VAT rate on books?\r\n\r\r\n\rtext\r",
	"no newline at all <memory-context> inside </memory-context and more",
	"Q: What is the VAT rate on books?",
	"Q: What <memory-context>x</memory-context>is the VAT rate on books?\nQ: <memory-context>x</memory-context>\n\n\nrest",
	"<<memory-context>>a</</memory-context>>",
	"- \n-\n> \n- - Q: What is the VAT rate on books?\n",
}

// split cuts text into pieces at random byte offsets, some of them empty.
func split(r *rand.Rand, text string) []string {
	var parts []string
	for text != "" {
		if r.IntN(8) == 0 {
			parts = append(parts, "")
		}
		n := 1 + r.IntN(min(len(text), 1+r.IntN(24)))
		parts = append(parts, text[:n])
		text = text[n:]
	}
	return append(parts, "")
}

func TestScrubAnySplit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := append(append([]string{}, trickyReplies...), normalReplies...)
	for _, block := range []string{testBlock, ""} {
		for _, in := range inputs {
			want := Scrub(block, in)
			for i := range 200 {
				var parts []string
				if i == 0 {
					parts = strings.Split(in, "") // rune by rune
				} else if i == 1 {
					for j := range len(in) {
						parts = append(parts, in[j:j+1]) // byte by byte
					}
				} else {
					parts = split(r, in)
				}
				s := NewScrubber(block)
				var b strings.Builder
				for _, p := range parts {
					b.WriteString(s.Feed(p))
				}
				b.WriteString(s.Flush())
				if got := b.String(); got != want {
					t.Fatalf("block %d bytes, split %q:\n got %q\nwant %q", len(block), parts, got, want)
				}
			}
		}
	}
}

func TestScrubStreamsPromptly(t *testing.T) {
	const text = "Hello world, the answer is 42."
	s := NewScrubber(testBlock)
	var released strings.Builder
	for i, w := range strings.SplitAfter(text, " ") {
		out := s.Feed(w)
		if i == 0 && out != "Hello " {
			t.Errorf("first word: released %q", out)
		}
		released.WriteString(out)
	}
	if got := released.String(); len(got) < len(text)-3 || !strings.HasPrefix(text, got) {
		t.Errorf("released before Flush: %q", got)
	}
	if got := released.String() + s.Flush(); got != text {
		t.Errorf("got %q", got)
	}
}

func TestScrubHoldsOnlyWhatMayBeRemoved(t *testing.T) {
	s := NewScrubber(testBlock)
	steps := []struct{ in, out string }{
		{"Q: What is", ""},                           // may be an echo
		{" the weather?", "Q: What is the weather?"}, // no longer
		{" Sunny.\n", " Sunny.\n"},
		{"a <mem", "a "}, // may be a tag
		{"o", ""},
		{"ry lane", "<memory lane"},
		{"\nA: Books are zero-rated: 0% VAT.", "\n"},
		{"\n", ""}, // an echo: removed
		{"x", "x"},
	}
	for _, st := range steps {
		if got := s.Feed(st.in); got != st.out {
			t.Errorf("Feed(%q) = %q, want %q", st.in, got, st.out)
		}
	}
	if got := s.Flush(); got != "" {
		t.Errorf("Flush() = %q", got)
	}
}

func TestScrubbed(t *testing.T) {
	s := NewScrubber(testBlock)
	s.Feed("Plain text.\n")
	if s.Scrubbed() {
		t.Fatal("Scrubbed() after plain text")
	}
	s.Feed("Q: What is the VAT rate on books?")
	if s.Scrubbed() {
		t.Fatal("Scrubbed() before the echoed line ended")
	}
	s.Feed("\n")
	if !s.Scrubbed() {
		t.Fatal("not Scrubbed() after an echoed line")
	}

	s = NewScrubber("")
	s.Feed("a <memory-")
	if s.Scrubbed() {
		t.Fatal("Scrubbed() on a tag start")
	}
	s.Feed("context>")
	if !s.Scrubbed() {
		t.Fatal("not Scrubbed() after an opening tag")
	}
	if got := s.Flush(); got != "" {
		t.Errorf("Flush() = %q", got)
	}
}

func TestEchoLines(t *testing.T) {
	got := echoLines(FenceOpen + "Reference only: not the user's words.\nQ: ok\n" + strings.ToUpper(FenceClose) + "\nReference only: not the user's words.")
	if len(got) != 1 || got[0] != "Reference only: not the user's words." {
		t.Errorf("echoLines = %q", got)
	}
}
