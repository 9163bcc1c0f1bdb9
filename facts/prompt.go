package facts

// The helper model's side of fact extraction: its instructions and the
// strict reading of its answer.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"yakor/llm"
)

// factsSystem is the system message of Request.
const factsSystem = `You extract durable memory from a user's message to an assistant. Keep only what is stable and useful later: names, roles and teams, software versions, budgets, deadlines, decisions, constraints, preferences, blockers, findings, corrections of earlier facts, and anything the user explicitly asks to remember. Keep nothing from greetings, thanks, passing remarks ("I'm tired today"), questions (a question such as "what is my budget?" states no fact), or the assistant's own words. The earlier conversation is context only: extract facts from the USER MESSAGE.

Scopes: "chat" = true of this conversation only; "user" = about the person, across all their conversations; "project" = about the shared project.
Kinds: "fact", "preference", "constraint" (budgets, deadlines, limits), "decision", "finding", "blocker", "correction" (the message corrects an earlier fact; give the corrected fact).
Slot: a lower-case name of the single-valued thing the fact sets, so that a newer fact supersedes an older one: "user.name", "user.role", "user.team", "project.budget", "project.deadline", "project.version:<name>" (e.g. "project.version:postgresql"), "user.preference:<topic>" (e.g. "user.preference:language"). Use "" when the fact fills no single-valued slot. "I moved to frontend" and "I work on backend" both set "user.team".
Text: the fact as one short self-contained sentence in the user's language, in the third person ("The user's name is Anna.", "Бюджет проекта — 500 000 руб."). Value: the slot's value as said ("Anna", "500 000 руб."), "" without a slot. Confidence: 0.9 for explicit "remember" and names, 0.8 for clear slot values, lower when unsure.
Forget: when the user asks to forget something ("forget that…", "забудь, что…"), put the words saying what in "forget" and make no fact of it.

Reply with only one JSON object, no other text:
{"facts": [{"scope": "chat|user|project", "kind": "fact|preference|constraint|decision|finding|blocker|correction", "slot": "", "text": "", "value": "", "confidence": 0.0}], "forget": ["..."]}
At most 10 facts. When there is nothing worth keeping, answer {"facts": [], "forget": []}.`

// Request builds the helper-model request for message: a system message
// with the instructions and the JSON contract, and a user message with the
// newest 2000 runes of context (the preceding conversation, may be
// "") and the message's first 6000 runes under labelled headers.
// Temperature is 0 and MaxTokens 600.
func Request(message, context string) llm.Request {
	var b strings.Builder
	if c := strings.TrimSpace(context); c != "" {
		if n := utf8.RuneCountInString(c); n > factsContextRunes {
			c = string([]rune(c)[n-factsContextRunes:])
		}
		fmt.Fprintf(&b, "=== EARLIER CONVERSATION (context only) ===\n%s\n\n", c)
	}
	fmt.Fprintf(&b, "=== USER MESSAGE ===\n%s\n\n=== END ===\nExtract the facts of the USER MESSAGE. Reply with the JSON object only.",
		cut(strings.TrimSpace(message), factsMessageRunes))
	return llm.Request{
		Messages:    []llm.Message{{Role: "system", Content: factsSystem}, {Role: "user", Content: b.String()}},
		MaxTokens:   factsMaxTokens,
		Temperature: new(float32(0)),
	}
}

// Parse reads the helper model's answer: one JSON object
// {"facts": [{"scope", "kind", "slot", "text", "value", "confidence"}],
// "forget": ["…"]}, alone or in a ```json (or bare ```) fence; prose around
// it, or a "facts" or "forget" that is not an array, is an error wrapping
// ErrBadAnswer. Each fact is kept when its scope and kind are known (compared
// lower-cased) and its text is not empty; an item that is not such an object
// is dropped. Texts are made one line of at most 500 runes, slots
// lower-cased, confidence clamped to [0,1] (0.6 when absent). At most 10
// facts and 10 non-empty forget entries are kept.
func Parse(text string) ([]Candidate, []string, error) {
	s := strings.TrimSpace(text)
	if m := factFenceRe.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	var ans struct{ Facts, Forget []json.RawMessage }
	dec := json.NewDecoder(strings.NewReader(s))
	if !strings.HasPrefix(s, "{") || dec.Decode(&ans) != nil {
		return nil, nil, fmt.Errorf("%w: not a JSON object as asked: %q", ErrBadAnswer, cut(s, 60))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, fmt.Errorf("%w: text after the JSON object", ErrBadAnswer)
	}
	return Candidates(ans.Facts), Forgets(ans.Forget), nil
}

// Candidates reads the "facts" items of a helper's answer as Parse does:
// an item that is not a fact of a known scope and kind with a text is
// dropped; at most 10 are kept.
func Candidates(items []json.RawMessage) []Candidate {
	var cands []Candidate
	for _, raw := range items {
		var f struct {
			Scope, Kind, Slot, Text, Value string
			Confidence                     *float64
		}
		if len(cands) == maxFacts || json.Unmarshal(raw, &f) != nil {
			continue
		}
		c := Candidate{Scope: strings.ToLower(strings.TrimSpace(f.Scope)), Kind: strings.ToLower(strings.TrimSpace(f.Kind)),
			Slot: strings.ToLower(strings.TrimSpace(f.Slot)), Text: cut(strings.Join(strings.Fields(f.Text), " "), factTextRunes),
			Value: strings.TrimSpace(f.Value), Confidence: min(max(*cmp.Or(f.Confidence, new(0.6)), 0), 1)}
		if c.Text != "" && slices.Contains([]string{ScopeChat, ScopeUser, ScopeProject}, c.Scope) &&
			slices.Contains([]string{KindFact, KindPreference, KindConstraint, KindDecision, KindFinding, KindBlocker, KindCorrection}, c.Kind) {
			cands = append(cands, c)
		}
	}
	return cands
}

// Forgets reads the "forget" items of a helper's answer as Parse does: at
// most 10 non-empty strings, each made one line.
func Forgets(items []json.RawMessage) []string {
	var forget []string
	for _, raw := range items {
		var w string
		if json.Unmarshal(raw, &w) == nil && strings.TrimSpace(w) != "" && len(forget) < maxFacts {
			forget = append(forget, strings.Join(strings.Fields(w), " "))
		}
	}
	return forget
}
