package upkeep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"yakor/anchors"
	"yakor/facts"
	"yakor/history"
	"yakor/llm"
	"yakor/sufler"
)

// This file is the helper model's side of the reading: the one request for
// a run of messages and the strict reading of its answer. It touches no
// database.

// Bounds of a reading request, in runes.
const (
	messageRunes = 4000 // each new message's first part
	anchorRunes  = 1500 // the current anchor's data (anchors.MaxData)
	factsRunes   = 1200 // the known facts, newest first
	hitsRunes    = 1500 // the search hits the replies used
	hitRunes     = 500  // each hit

	maxTokensPerMessage = 250
)

// job is what one reading covers: the new messages, which of the replies
// to grade, and what the conversation knows already.
type job struct {
	msgs     []history.Message
	grade    []int64 // replies of msgs to grade
	topic    string  // the current anchor's topic ("" when none)
	data     string  // its data
	facts    []string
	hits     []string
	wantFact bool // facts are kept: ask for them
}

const intro = `You keep the memory of a conversation between a user and an assistant. Read the NEW MESSAGES and reply with only one JSON object, no other text and no code fence:
{"messages": [{"id": 0, "topic": "", "data": "", "data_changed": false}], "facts": [{"message": 0, "scope": "chat", "kind": "fact", "slot": "", "text": "", "value": "", "confidence": 0.8}], "forget": [{"message": 0, "what": ""}], "grades": [{"reply": 0, "score": 5, "reason": "", "research_topic": ""}]}
Give an empty array for what you have nothing for.`

const topicsPart = `
messages: one item per new message, by its id. topic: what the message is about, a short phrase of 1-5 words in the conversation's language ("прайс на ЛДСП", "price list: oak board"); for an assistant's message, the topic it answers. data: the key data it states — figures with their units and currencies and what they measure, totals and results, names and roles, dates (a relative day such as "yesterday" as the date it means), decisions — "" when none. data_changed: true when it adds or changes key data.`

const factsPart = `
facts: durable facts of USER messages only (never the assistant's words): names, roles, teams, versions, budgets, deadlines, decisions, constraints, preferences, blockers, findings, corrections, and what the user asks to remember. Nothing from greetings, thanks, passing remarks or questions. "message": the user message's id. scope: "chat" (this conversation), "user" (the person, everywhere) or "project" (the shared project). kind: fact, preference, constraint, decision, finding, blocker or correction. slot: the single-valued thing it sets so that a newer fact supersedes an older one ("user.name", "user.role", "user.team", "project.budget", "project.deadline", "project.version:<name>", "user.preference:<topic>"), "" if none. text: one short third-person sentence in the user's language. value: the slot's value. confidence: 0.9 explicit, 0.8 clear, lower when unsure. KNOWN FACTS are kept already: repeat none of them. forget: what the user asks to forget ("forget that…", "забудь…"), by message.`

const gradesPart = `
grades: one item per reply listed under GRADE. score 1-5: 5 answers exactly what was asked, grounded in what the conversation holds, correct, nothing invented; 4 small gap; 3 partly answers or vague; 2 misses the question, ignores or contradicts what it was given, or the user's next message corrects it; 1 wrong, empty or an invented figure, price, name or date. A fixed notice that no model is configured is boilerplate: judge the rest. reason: one sentence. research_topic: for a score of 2 or less, a short topic to study so that such a question is answered well next time, in the conversation's language; else "".`

// request builds the reading's one helper request.
func request(j job) llm.Request {
	system := intro + topicsPart
	if j.wantFact {
		system += factsPart
	}
	if len(j.grade) > 0 {
		system += gradesPart
	}
	var b strings.Builder
	section := func(label, text string) { fmt.Fprintf(&b, "=== %s ===\n%s\n\n", label, text) }
	if j.topic != "" {
		section("CURRENT TOPIC", j.topic+"\n"+cut(j.data, anchorRunes))
	}
	if j.wantFact && len(j.facts) > 0 {
		section("KNOWN FACTS", fitLines(j.facts, factsRunes))
	}
	if len(j.hits) > 0 {
		section("SEARCH HITS THE REPLIES USED", fitLines(j.hits, hitsRunes))
	}
	var m strings.Builder
	for _, msg := range j.msgs {
		// The day it was said, so that "yesterday" can be read as a date.
		fmt.Fprintf(&m, "[%d] %s, %s: %s\n", msg.ID, msg.Role, msg.CreatedAt.UTC().Format("Mon 2006-01-02"), cut(strings.TrimSpace(msg.Content), messageRunes))
	}
	section("NEW MESSAGES", strings.TrimSpace(m.String()))
	if len(j.grade) > 0 {
		ids := make([]string, len(j.grade))
		for i, id := range j.grade {
			ids[i] = strconv.FormatInt(id, 10)
		}
		section("GRADE", "replies "+strings.Join(ids, ", "))
	}
	b.WriteString("=== END ===\nReply with the JSON object only.")
	return llm.Request{
		Messages:    []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: b.String()}},
		MaxTokens:   300 + maxTokensPerMessage*len(j.msgs),
		Temperature: new(float32(0)),
	}
}

// reading is what the helper answered, by message: the topics and data
// (anchors), the facts (facts) and the grades (sufler) it read well. A
// message missing from a map is read offline by its service.
type reading struct {
	grader string // the helper's name, for its grades
	topics map[int64]anchors.Extraction
	said   map[int64]facts.Said
	grades map[int64]sufler.Grade
}

// errMalformed is an answer that is not the JSON object asked for.
var errMalformed = errors.New("upkeep: the helper's answer is not the JSON object asked for")

var fenceRe = regexp.MustCompile("(?s)^```(?:json)?\\s*(.*?)\\s*```$")

// parse reads the helper's answer for j: one JSON object (a ```json fence
// around it is tolerated) whose "messages", "facts", "forget" and "grades"
// are arrays when present. An item naming a message the request did not
// list, or not of the shape asked, is dropped; so is a fact of an
// assistant's message and a grade of a reply not asked for.
func parse(text string, j job) (reading, error) {
	s := strings.TrimSpace(text)
	if m := fenceRe.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	var ans struct {
		Messages, Facts, Forget, Grades []json.RawMessage
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if !strings.HasPrefix(s, "{") || dec.Decode(&ans) != nil {
		return reading{}, fmt.Errorf("%w: %q", errMalformed, cut(s, 80))
	}
	if _, err := dec.Token(); err != io.EOF {
		return reading{}, fmt.Errorf("%w: text after the object", errMalformed)
	}
	role := map[int64]string{}
	for _, m := range j.msgs {
		role[m.ID] = m.Role
	}
	r := reading{topics: map[int64]anchors.Extraction{}, said: map[int64]facts.Said{}, grades: map[int64]sufler.Grade{}}
	for _, raw := range ans.Messages {
		var v struct {
			ID          int64   `json:"id"`
			Topic       *string `json:"topic"`
			Data        string  `json:"data"`
			DataChanged bool    `json:"data_changed"`
		}
		if json.Unmarshal(raw, &v) != nil || role[v.ID] == "" || v.Topic == nil {
			continue
		}
		if ex, err := anchors.Helped(*v.Topic, v.Data, v.DataChanged); err == nil {
			r.topics[v.ID] = ex
		}
	}
	if j.wantFact {
		r.readFacts(ans.Facts, ans.Forget, role)
	}
	for _, raw := range ans.Grades {
		var v struct {
			Reply int64 `json:"reply"`
		}
		if json.Unmarshal(raw, &v) != nil || !slices.Contains(j.grade, v.Reply) {
			continue
		}
		if g, err := sufler.ParseObject(raw); err == nil {
			r.grades[v.Reply] = g
		}
	}
	return r, nil
}

// readFacts reads the facts and the forget items, by user message. Every
// user message of the request gets an entry (none said: nothing to keep).
func (r reading) readFacts(items, forget []json.RawMessage, role map[int64]string) {
	by := map[int64][]json.RawMessage{}
	for _, raw := range items {
		var v struct {
			Message int64 `json:"message"`
		}
		if json.Unmarshal(raw, &v) == nil && role[v.Message] == history.RoleUser {
			by[v.Message] = append(by[v.Message], raw)
		}
	}
	forgot := map[int64][]json.RawMessage{}
	for _, raw := range forget {
		var v struct {
			Message int64  `json:"message"`
			What    string `json:"what"`
		}
		if json.Unmarshal(raw, &v) == nil && role[v.Message] == history.RoleUser {
			what, _ := json.Marshal(v.What)
			forgot[v.Message] = append(forgot[v.Message], what)
		}
	}
	for id, rl := range role {
		if rl == history.RoleUser {
			r.said[id] = facts.Said{Facts: facts.Candidates(by[id]), Forget: facts.Forgets(forgot[id])}
		}
	}
}

// cut keeps the first n runes of s, the last of them "…" when s is longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n-1])) + "…"
}

// fitLines joins lines, one per line, while they fit in n runes.
func fitLines(lines []string, n int) string {
	var b strings.Builder
	used := 0
	for _, l := range lines {
		l = strings.Join(strings.Fields(l), " ")
		k := utf8.RuneCountInString(l) + 3
		if used+k > n {
			break
		}
		used += k
		b.WriteString("- " + l + "\n")
	}
	return strings.TrimSpace(b.String())
}
