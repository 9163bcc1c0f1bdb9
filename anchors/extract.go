package anchors

import (
	"slices"

	"yakor/llm"
	"yakor/words"
)

// Sources of an Extraction.
const (
	SourceOffline = "offline" // OfflineExtract
	SourceHelper  = "helper"  // the helper model
)

// Extraction is what the topic extractor read in one message.
type Extraction struct {
	Topic       string // a short phrase in the conversation's language, e.g. "прайс-лист на ЛДСП" / "price list"; "" when the message has none
	Data        string // key data the message carries (numbers with units/currencies, totals, A × B = C results, decisions), "" if none
	DataChanged bool   // the message changes key data of its topic (a new or different value)
	// Notes are statements worth keeping besides the figures (what
	// happened and when, who, what was decided; notes.go): kept in the
	// anchor's data, but no reason on their own to set a new anchor.
	Notes  string
	Source string // SourceOffline or SourceHelper
}

// OfflineExtract reads a message with no model.
//
// Topic is words.Topic(text, exclude): a short noun phrase cut from the
// message, in its language, word order and case ("прайс-лист на ЛДСП",
// "Price list for the kitchen"), without the names in exclude (the
// thread's authors); "" when it names none ("ok, спасибо").
//
// Data holds the message's figures, each with what it measures
// (keyFragments): every row of a markdown table that holds a number, and
// every line or sentence (words.Sentences) that carries key data — a
// number with a unit or currency ("3 400 руб/лист", "16 мм", "$120",
// "15%"), a total ("Итого: 285 600"), a calculation ("3 × 1250 = 3750",
// also with x, *, ·, + or /), a rate ("3400 per sheet"), a number after a
// word of price ("delivery costs 2500") or, in a list, after its label
// ("Price list: board 3400, panel 1250"). A sentence that lists several
// such items gives one fragment per item, without its lead-in ("oak board
// 3400 per sheet; birch panel 1250 per sheet; 12 sheets of oak in
// total"). The fragments are trimmed, repeated ones kept once (the last),
// and joined by "; ". When that is longer than MaxData, the OLDEST
// fragments are dropped first (fitFragments), so the newest values win. DataChanged is
// Data != "".
//
// The offline model's own lines (llm.WithoutOfflineLines: its notice that
// no model is configured, its quote of an earlier message) are read as
// nothing: they are Yakor's, and what they quote was read when it was
// said.
func OfflineExtract(text string, exclude []string) Extraction {
	ex := offlineData(text)
	ex.Topic = words.Topic(llm.WithoutOfflineLines(text), exclude)
	return ex
}

// offlineData is OfflineExtract without the topic: what the service reads
// of a message that is not the user's, whose topic is the current one.
func offlineData(text string) Extraction {
	text = llm.WithoutOfflineLines(text)
	var frags []string
	seen := map[string]bool{}
	for _, f := range slices.Backward(keyFragments(text)) { // the last of repeated ones stays
		if norm := normalize(f); !seen[norm] {
			seen[norm] = true
			frags = append(frags, f)
		}
	}
	slices.Reverse(frags)
	data := fitFragments(frags, MaxData)
	return Extraction{Data: data, DataChanged: data != "", Source: SourceOffline}
}

// hasKeyData reports whether a fragment carries key data (see
// OfflineExtract).
func hasKeyData(fragment string) bool {
	toks := words.Scan(words.Fold(fragment))
	for i, t := range toks {
		var next words.Token
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch t.Kind {
		case words.NumberToken:
			if next.Kind == words.WordToken && words.IsUnit(next.Text) || next.Kind == words.SymbolToken && isUnitSymbol(next.Text) {
				return true
			}
		case words.SymbolToken:
			if isUnitSymbol(t.Text) && next.Kind == words.NumberToken {
				return true
			}
		case words.WordToken:
			if words.IsTotalMarker(t.Text) && slices.ContainsFunc(toks[i+1:], func(t words.Token) bool { return t.Kind == words.NumberToken }) {
				return true
			}
		}
	}
	return hasCalculation(toks)
}

// hasCalculation reports whether toks hold "A op B = C": a number, an
// operator, a number, '=' and a number, in that order (units may come
// between them).
func hasCalculation(toks []words.Token) bool {
	step := 0 // 0: want A, 1: want op, 2: want B, 3: want '=', 4: want C
	for _, t := range toks {
		switch {
		case t.Kind == words.NumberToken && (step == 0 || step == 2 || step == 4):
			if step == 4 {
				return true
			}
			step++
		case step == 1 && isOperator(t):
			step = 2
		case step == 3 && t.Kind == words.SymbolToken && t.Text == "=":
			step = 4
		case t.Kind == words.SymbolToken && t.Text == "=" && step < 3:
			step = 0 // "x = 5" is not a result
		}
	}
	return false
}

// isOperator reports whether t is an arithmetic operator of a result line.
func isOperator(t words.Token) bool {
	switch t.Text {
	case "×", "*", "·", "+", "/", "÷":
		return t.Kind == words.SymbolToken
	case "x", "х": // Latin and Cyrillic
		return t.Kind == words.WordToken
	}
	return false
}

// isUnitSymbol reports whether a symbol is a currency or a percent sign.
func isUnitSymbol(s string) bool {
	switch s {
	case "$", "€", "£", "¥", "₽", "₸", "₴", "₹", "%", "‰", "°":
		return true
	}
	return false
}
