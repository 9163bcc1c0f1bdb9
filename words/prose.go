package words

import "strings"

// proseSentence is a sentence of a text's prose, or a heading.
type proseSentence struct {
	text    string
	heading bool // a markdown heading ("# Migration plan")
	table   bool // a cell of a markdown table
}

// proseSentences returns the sentences (Sentences) of text's prose, and
// its headings whole: fenced code blocks, code (codeStart) and links are
// left out.
func proseSentences(text string) []proseSentence {
	var out []proseSentence
	fenced := false
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if line = line[:codeStart(line)]; line == "" {
			continue
		}
		line = dropLinks(line)
		if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
			if h = strings.TrimSpace(markup.Replace(h)); h != "" {
				out = append(out, proseSentence{text: h, heading: true})
			}
			continue
		}
		table := strings.HasPrefix(line, "|")
		for _, s := range Sentences(line) {
			out = append(out, proseSentence{text: s, table: table})
		}
	}
	return out
}

// codeMarks are what only code has in a line of chat.
var codeMarks = []string{"{", "}", "();", "=>", ":=", "==", "!=", "&&", "||", "->", "</", "/>", "[\"", "\"]"}

// codePrefixes start a line of code.
var codePrefixes = []string{
	"def ", "func ", "class ", "import ", "return ", "package ", "var ", "const ",
	"#include", "#!", "SELECT ", "select ", "print(", "console.", "if (", "for (", "fn ", "$ ",
}

// codeStart returns where the code in a trimmed line starts: 0 for a line
// of code (a code prefix, or a trailing ";" or "{"), the first code mark or
// markup tag ("Tell me about oak: <img …>"), or len(line) when it has
// none.
func codeStart(line string) int {
	for _, p := range codePrefixes {
		if strings.HasPrefix(line, p) {
			return 0
		}
	}
	if strings.HasSuffix(line, ";") || strings.HasSuffix(line, "{") {
		return 0
	}
	start := len(line)
	for _, m := range codeMarks {
		if i := strings.Index(line, m); i >= 0 && i < start {
			start = i
		}
	}
	for i := 0; i+1 < len(line) && i < start; i++ {
		if line[i] == '<' && (line[i+1] == '/' || 'a' <= line[i+1]|0x20 && line[i+1]|0x20 <= 'z') {
			start = i
		}
	}
	return start
}

// dropLinks replaces the links of a line (http://, https://, www.) with a
// comma, which ends a phrase.
func dropLinks(line string) string {
	if !strings.Contains(line, "http") && !strings.Contains(line, "www.") {
		return line
	}
	fields := strings.Fields(line)
	for i, f := range fields {
		if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") || strings.HasPrefix(f, "www.") {
			fields[i] = ","
		}
	}
	return strings.Join(fields, " ")
}
