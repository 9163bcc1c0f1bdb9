package anchors

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"yakor/words"
)

// This file finds the key data of one message with no model (see
// OfflineExtract): the figures of a price list, a calculation or a table,
// each with what it measures.

// keyFragments returns the fragments of text that carry key data, in
// order: the rows of its markdown tables that hold a number, and the
// sentences (words.Sentences) that carry key data (sentenceFragments).
func keyFragments(text string) []string {
	var out []string
	list := false // a lead-in alone on its line ("Прайс:") opened a list
	lines := strings.Split(text, "\n")
	var header []string
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			list = false // a blank line ends the list a lead-in opened
		}
		if !strings.HasPrefix(line, "|") {
			header = nil
			for _, s := range words.Sentences(line) {
				out = append(out, sentenceFragments(s, &list)...)
			}
			continue
		}
		cells := tableCells(line)
		switch {
		case separatorRow(cells):
		case i+1 < len(lines) && separatorRow(tableCells(strings.TrimSpace(lines[i+1]))):
			header = cells
		case hasNumber(line):
			out = append(out, tableFragment(header, cells))
		}
	}
	return out
}

// sentenceFragments returns the key data of sentence s. A sentence that
// lists several figures, each with its label ("Price list: oak board 3400
// per sheet, birch panel 1250 per sheet"), gives one fragment per item,
// without the lead-in; any other sentence with a figure is one fragment. A
// lead-in alone ("Прайс:") sets *list, so that the lines after it are
// read as the items of a list.
func sentenceFragments(s string, list *bool) []string {
	lead, rest, hasLead := words.LeadIn(s)
	if hasLead && hasNumber(lead) {
		hasLead, rest = false, s
	}
	if !hasLead {
		rest = s
	} else if strings.TrimSpace(rest) == "" {
		*list = true
		return nil
	}
	items := splitItems(rest)
	labelled := 0
	for _, it := range items {
		if labelledNumber(it) {
			labelled++
		}
	}
	inList := *list || hasLead || labelled >= 2
	var figures []string
	for _, it := range items {
		if isFigure(it, inList) {
			figures = append(figures, trimFragment(it))
		}
	}
	switch {
	case len(items) >= 2 && len(figures) >= 2:
		return figures
	case isFigure(s, inList):
		return []string{trimFragment(s)}
	}
	return nil
}

// isFigure reports whether a fragment carries key data: a number with a
// unit or currency, a total or a calculation (hasKeyData); a rate ("3400
// per sheet", "3400/лист", "3400 за лист"); a number after a word of price
// ("delivery costs 2500", "цена 3400"), after a label and a colon or dash
// ("Бюджет — 1,2", not "x = 5"), after "is" when it has three digits ("The sofa is
// 31500"), or, in a list, after any word ("board 3400"). A year ("в 2019")
// is no figure.
func isFigure(fragment string, inList bool) bool {
	if hasKeyData(fragment) {
		return true
	}
	toks := words.Scan(words.Fold(fragment))
	price, label := false, false
	for i, t := range toks {
		switch t.Kind {
		case words.WordToken:
			price = price || isPriceWord(t.Text)
			label = label || utf8.RuneCountInString(t.Text) >= 2
			continue
		case words.SymbolToken:
			continue
		}
		if yearLike(t.Text) {
			continue
		}
		prev, next, after := tokenAt(toks, i-1), tokenAt(toks, i+1), tokenAt(toks, i+2)
		switch {
		case next.Text == "/" && after.Kind == words.WordToken,
			next.Kind == words.WordToken && isRateWord(next.Text),
			price,
			label && prev.Kind == words.SymbolToken && strings.Contains(":—–-", prev.Text) && tokenAt(toks, i-2).Kind != words.NumberToken,
			prev.Kind == words.WordToken && isCopula(prev.Text) && digits(t.Text) >= 3,
			inList && label:
			return true
		}
	}
	return false
}

// labelledNumber reports whether a list item is a word followed by a
// number ("board 3400").
func labelledNumber(item string) bool {
	toks := words.Scan(words.Fold(item))
	for i, t := range toks {
		if t.Kind == words.NumberToken && !yearLike(t.Text) && i > 0 {
			for _, p := range toks[:i] {
				if p.Kind == words.WordToken && utf8.RuneCountInString(p.Text) >= 2 {
					return true
				}
			}
		}
	}
	return false
}

// splitItems splits s into the items of a list: at a comma or semicolon
// followed by white space (not "1,5", "$1,350").
func splitItems(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if (r == ',' || r == ';') && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t') {
			if item := strings.TrimSpace(s[start:i]); item != "" {
				out = append(out, item)
			}
			start = i + 1
		}
	}
	if item := strings.TrimSpace(s[start:]); item != "" {
		out = append(out, item)
	}
	return out
}

// trimFragment trims a fragment and the full stop after it.
func trimFragment(f string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(f), "."))
}

// tableCells returns the trimmed cells of a markdown table row.
func tableCells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	cells := strings.Split(row, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(strings.NewReplacer("**", "", "__", "", "`", "").Replace(c))
	}
	return cells
}

// separatorRow reports whether cells are a table's header separator
// ("---", ":--:").
func separatorRow(cells []string) bool {
	if len(cells) == 0 {
		return false
	}
	for _, c := range cells {
		if c == "" || strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

// tableFragment writes a table row as a fragment: its first cell, a colon,
// and the others, each after its column's name when the table has a
// header ("Дуб: Цена 3400, Кол-во 12").
func tableFragment(header, cells []string) string {
	var rest []string
	for i, c := range cells[1:] {
		if c == "" {
			continue
		}
		if i+1 < len(header) && header[i+1] != "" {
			c = header[i+1] + " " + c
		}
		rest = append(rest, c)
	}
	if len(rest) == 0 {
		return cells[0]
	}
	return cells[0] + ": " + strings.Join(rest, ", ")
}

// isPriceWord reports whether a folded word speaks of a price ("costs",
// "стоимость", "цену").
func isPriceWord(w string) bool {
	switch w {
	case "cost", "costs", "costing", "price", "prices", "priced", "charge", "charges", "charged", "fee", "fees",
		"pay", "pays", "paid", "budget", "salary", "rent", "rate", "стоит", "стоят", "обойдется", "обойдутся",
		"цена", "цены", "цене", "цену", "ценой", "цен", "ценам", "ценами", "ценах": // not "центр", "ценность"
		return true
	}
	for _, p := range []string{"стоил", "стоимост", "бюджет", "оплат", "аренд", "зарплат", "курс", "ставк", "тариф"} {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// isRateWord reports whether a folded word after a number makes it a rate
// ("3400 per sheet", "3400 за лист", "3400 each").
func isRateWord(w string) bool {
	switch w {
	case "per", "each", "apiece", "за", "каждый", "каждая", "каждое":
		return true
	}
	return false
}

// isCopula reports whether a folded word says a thing is a number ("The
// sofa is 31500").
func isCopula(w string) bool {
	switch w {
	case "is", "are", "was", "were", "составляет", "составит", "будет":
		return true
	}
	return false
}

// yearLike reports whether a number is a year: four digits, 1900 to 2100.
func yearLike(n string) bool {
	return len(n) == 4 && digits(n) == 4 && n >= "1900" && n <= "2100"
}

// digits counts the digits of s.
func digits(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// hasNumber reports whether s has a digit.
func hasNumber(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }

// tokenAt returns toks[i], or the zero token past either end.
func tokenAt(toks []words.Token, i int) words.Token {
	if i < 0 || i >= len(toks) {
		return words.Token{Kind: words.SymbolToken}
	}
	return toks[i]
}
