package anchors

import (
	"slices"

	"yakor/words"
)

// Sources of an Extraction.
const (
	SourceOffline = "offline" // OfflineExtract
	SourceHelper  = "helper"  // the helper model
)

// Extraction is what the topic extractor read in one message.
type Extraction struct {
	Topic       string // a short phrase in the conversation's language, e.g. "прайс ЛДСП" / "price list"; "" when the message has none
	Data        string // key data the message carries (numbers with units/currencies, totals, A × B = C results, decisions), "" if none
	DataChanged bool   // the message changes key data of its topic (a new or different value)
	Source      string // SourceOffline or SourceHelper
}

// OfflineExtract reads a message with no model.
//
// Topic is words.Topic(text, exclude): the message's 1–3 most distinctive
// keywords, without the names in exclude, "" when it has none ("ok,
// спасибо").
//
// Data holds each line or sentence (words.Sentences) of the message that
// carries key data: a number with a unit or currency ("3 400 руб/лист",
// "16 мм", "$120", "15%"), a total marker with a number ("Итого: 285 600"),
// or a calculation ("3 × 1250 = 3750", also with x, *, ·, + or /). The
// fragments are trimmed, repeated ones kept once (the last), and joined by
// "; ". When that is longer than MaxData, the OLDEST fragments are dropped
// first, so the newest values win. DataChanged is Data != "".
func OfflineExtract(text string, exclude []string) Extraction {
	var frags []string
	seen := map[string]bool{}
	for _, s := range slices.Backward(words.Sentences(text)) { // the last of repeated ones stays
		if norm := normalize(s); !seen[norm] && hasKeyData(s) {
			seen[norm] = true
			frags = append(frags, s)
		}
	}
	slices.Reverse(frags)
	data := fitFragments(frags, MaxData)
	return Extraction{
		Topic:       words.Topic(text, exclude),
		Data:        data,
		DataChanged: data != "",
		Source:      SourceOffline,
	}
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
