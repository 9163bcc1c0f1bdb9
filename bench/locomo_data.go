package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"yakor/history"
	"yakor/words"
)

// locomoSample is one conversation of locomo10.json with its questions; the
// generated summaries and observations are not read: they would hand the
// search its answers.
type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

// locomoQA is one question; its answer is not needed to measure recall.
type locomoQA struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

// locomoTurn is one turn of a session.
type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

// locomoConv is a sample ready to import: its messages in order and its
// questions with evidence as indexes into the messages.
type locomoConv struct {
	id        string
	msgs      []history.NewMessage
	questions []locomoQuestion
	dropped   int // evidence ids malformed or naming no turn
}

// locomoQuestion is one question; no evidence means it is left out of
// recall.
type locomoQuestion struct {
	text     string
	category int
	evidence []int // indexes into locomoConv.msgs, no repeats
	// noSharedKeyword: none of the question's keywords is in any of its
	// evidence messages (see locomoSharesKeyword), so the lexical legs
	// cannot find the evidence by itself.
	noSharedKeyword bool
}

var locomoSessionKey = regexp.MustCompile(`^session_([0-9]+)$`)

// locomoPrepare turns a sample into messages, sessions in numeric order
// (sessions without turns are skipped), and resolves its questions'
// evidence.
func locomoPrepare(s locomoSample) (locomoConv, error) {
	c := locomoConv{id: s.SampleID}
	index, err := c.readSessions(s)
	if err != nil {
		return c, err
	}
	authors := locomoAuthors(c)
	for _, q := range s.QA {
		lq := locomoQuestion{text: q.Question, category: q.Category}
		ids, malformed := locomoEvidence(q.Evidence)
		c.dropped += malformed
		for _, id := range ids {
			i, ok := index[id]
			if !ok {
				c.dropped++
				continue
			}
			if !slices.Contains(lq.evidence, i) {
				lq.evidence = append(lq.evidence, i)
			}
		}
		if len(lq.evidence) > 0 {
			texts := make([]string, len(lq.evidence))
			for i, e := range lq.evidence {
				texts[i] = c.msgs[e].Content
			}
			lq.noSharedKeyword = !locomoSharesKeyword(q.Question, texts, authors)
		}
		c.questions = append(c.questions, lq)
	}
	return c, nil
}

// readSessions reads the sample's sessions, in numeric order, into c's
// messages, and returns the index of each turn's message by its dia_id.
func (c *locomoConv) readSessions(s locomoSample) (map[string]int, error) {
	var speakerB string
	if raw, ok := s.Conversation["speaker_b"]; ok {
		if err := json.Unmarshal(raw, &speakerB); err != nil {
			return nil, fmt.Errorf("%s: speaker_b: %w", s.SampleID, err)
		}
	}
	var sessions []int
	for k := range s.Conversation {
		if m := locomoSessionKey.FindStringSubmatch(k); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", s.SampleID, k, err)
			}
			sessions = append(sessions, n)
		}
	}
	slices.Sort(sessions)
	index := map[string]int{} // dia_id → message index
	for _, n := range sessions {
		key := "session_" + strconv.Itoa(n)
		var turns []locomoTurn
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", s.SampleID, key, err)
		}
		if len(turns) == 0 {
			continue
		}
		var when string
		if err := json.Unmarshal(s.Conversation[key+"_date_time"], &when); err != nil {
			return nil, fmt.Errorf("%s: %s_date_time: %w", s.SampleID, key, err)
		}
		date, err := locomoParseDate(when)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", s.SampleID, key, err)
		}
		for i, t := range turns {
			content := locomoContent(t)
			if content == "" {
				continue // nothing to store; evidence naming it is dropped
			}
			role := history.RoleUser
			if t.Speaker == speakerB {
				role = history.RoleAssistant
			}
			id := t.DiaID
			if ids, _ := locomoEvidence([]string{t.DiaID}); len(ids) == 1 {
				id = ids[0]
			}
			index[id] = len(c.msgs)
			c.msgs = append(c.msgs, history.NewMessage{Role: role, Author: t.Speaker, Content: content, CreatedAt: date.Add(time.Duration(i) * time.Second)})
		}
	}
	return index, nil
}

// locomoAuthors are a conversation's speakers.
func locomoAuthors(c locomoConv) []string {
	var authors []string
	for _, m := range c.msgs {
		if m.Author != "" && !slices.Contains(authors, m.Author) {
			authors = append(authors, m.Author)
		}
	}
	return authors
}

// locomoSharesKeyword reports whether one of the question's keywords, as
// search makes them (the speakers' names left out), is in one of the
// evidence texts, tested as the keyword leg tests it: the stem as a
// substring of the folded text.
func locomoSharesKeyword(question string, evidence, authors []string) bool {
	kws := words.Keywords(question, authors)
	for _, text := range evidence {
		folded := words.Fold(text)
		for _, k := range kws {
			if strings.Contains(folded, k.Stem) {
				return true
			}
		}
	}
	return false
}

// locomoContent is a turn's message: its text, and the caption of the photo
// it shares.
func locomoContent(t locomoTurn) string {
	content := strings.TrimSpace(t.Text)
	if t.BlipCaption != "" {
		content = strings.TrimSpace(content + " [shares a photo: " + t.BlipCaption + "]")
	}
	return content
}

// locomoDateLayout is the sessions' date_time format, "1:56 pm on 8 May, 2023".
const locomoDateLayout = "3:04 pm on 2 January, 2006"

// locomoParseDate reads a session's date_time as UTC.
func locomoParseDate(s string) (time.Time, error) {
	t, err := time.Parse(locomoDateLayout, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q: want the form %q", s, "1:56 pm on 8 May, 2023")
	}
	return t, nil
}

var locomoIDPattern = regexp.MustCompile(`^D:?([0-9]+):([0-9]+)$`)

// locomoEvidence normalises evidence strings into dia_ids ("D<session>:<turn>"),
// mending the dataset's quirks: several ids in one string ("D8:6; D9:17",
// "D9:1 D4:4 D4:6"), a stray colon ("D:11:26") and leading zeros
// ("D30:05"). Anything else (a bare "D") is dropped and counted in
// malformed; repeats are removed. Whether an id names a turn is for the
// caller to check.
func locomoEvidence(raw []string) (ids []string, malformed int) {
	for _, r := range raw {
		for _, f := range strings.FieldsFunc(r, func(r rune) bool { return r == ';' || r == ',' || unicode.IsSpace(r) }) {
			m := locomoIDPattern.FindStringSubmatch(f)
			if m == nil {
				malformed++
				continue
			}
			sess, err1 := strconv.Atoi(m[1])
			turn, err2 := strconv.Atoi(m[2])
			if err1 != nil || err2 != nil {
				malformed++
				continue
			}
			id := fmt.Sprintf("D%d:%d", sess, turn)
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids, malformed
}

// locomoRead reads locomo10.json at path and prepares its conversations.
func locomoRead(path string) ([]locomoConv, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var samples []locomoSample
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	convs := make([]locomoConv, 0, len(samples))
	for _, s := range samples {
		c, err := locomoPrepare(s)
		if err != nil {
			return nil, err
		}
		convs = append(convs, c)
	}
	return convs, nil
}
