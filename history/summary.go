package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"yakor/fence"
	"yakor/llm"
	"yakor/words"
)

// ErrBadSummary wraps every error of ParseSummaryAnswer.
var ErrBadSummary = errors.New("history: bad summary answer")

const (
	sumItemRunes   = 200    // longest extracted item, active task, tool first line
	sumPromptRunes = 24_000 // the messages' share of a SummaryRequest
	sumMinCut      = 80     // a cut message keeps at least this many runes
	sumMaxTokens   = 1200
)

// Summary is a running summary's three parts.
type Summary struct {
	Resolved   []string // what was settled: decisions, answers given, numbers agreed
	Pending    []string // open questions, promised follow-ups, unanswered requests
	ActiveTask string   // what the user is working on now
}

// CheapPass prepares messages for summarizing without a model: an old tool
// output (Kind == KindTool or Role == "tool") is shrunk to its first line
// (at most 200 runes) + " …", and a message whose content repeats an earlier
// one in the slice verbatim (after trimming and collapsing spaces) is dropped,
// and so is a reply of the offline model (llm.IsOfflineReply), which only
// quotes the conversation back.
// It returns a new slice (msgs is not modified) and how many characters
// (runes) it saved. A shrunk message's Chars is updated.
func CheapPass(msgs []Message) ([]Message, int) {
	out := make([]Message, 0, len(msgs))
	seen := make(map[string]bool, len(msgs))
	saved := 0
	for _, m := range msgs {
		n := utf8.RuneCountInString(m.Content)
		key := strings.Join(strings.Fields(m.Content), " ")
		if seen[key] || m.Role == RoleAssistant && llm.IsOfflineReply(m.Content) {
			saved += n
			continue
		}
		seen[key] = true
		if m.Kind == KindTool || m.Role == RoleTool {
			trimmed := strings.TrimSpace(m.Content)
			first, _, _ := strings.Cut(trimmed, "\n")
			if first = sumClip(first, sumItemRunes); first != trimmed {
				short := first + " …"
				if k := utf8.RuneCountInString(short); k < n {
					m.Content, m.Chars = short, k
					saved += n - k
				}
			}
		}
		out = append(out, m)
	}
	return out, saved
}

// Split picks what to compact. head is the first exchange: the first message
// when it is a user message, and the second too when it is the assistant's
// reply (kind "message" both); it is empty when the thread does not start so.
// tail is the newest messages whose Chars (the rune count when Chars is 0)
// sum to at most tailBudget, whole messages, and at least the newest 2 (never
// overlapping head). middle is everything between; when it is empty (nil)
// there is nothing to compact. The three share msgs' backing array.
func Split(msgs []Message, tailBudget int) (head, middle, tail []Message) {
	h := 0
	if len(msgs) > 0 && msgs[0].Role == RoleUser && sumIsMessage(msgs[0]) {
		h = 1
		if len(msgs) > 1 && msgs[1].Role == RoleAssistant && sumIsMessage(msgs[1]) {
			h = 2
		}
	}
	t, sum := len(msgs), 0
	for t > h {
		c := msgs[t-1].Chars
		if c <= 0 {
			c = utf8.RuneCountInString(msgs[t-1].Content)
		}
		if len(msgs)-t >= 2 && sum+c > tailBudget {
			break
		}
		sum += c
		t--
	}
	if t > h {
		middle = msgs[h:t:t]
	}
	return msgs[:h:h], middle, msgs[t:]
}

// sumLangs holds the header and the section titles in English and Russian.
var sumLangs = [2][4]string{
	{"[SUMMARY of messages %d–%d]", "Resolved:", "Pending:", "Active task:"},
	{"[СВОДКА сообщений %d–%d]", "Решено:", "Не решено:", "Текущая задача:"},
}

// Render lays the summary out as the row's text, in lang ("ru" or "en"; any
// other value is English): a header line "[SUMMARY of messages N–M]" /
// "[СВОДКА сообщений N–M]" (N, M: the first and last message ids covered),
// then the sections "Resolved:", "Pending:", "Active task:" ("Решено:",
// "Не решено:", "Текущая задача:"), each followed by "- " item lines. An empty
// section is left out; each item is put on one line (spaces collapsed).
func (s Summary) Render(lang string, firstID, lastID int64) string {
	l := sumLangs[0]
	if strings.HasPrefix(strings.ToLower(lang), "ru") {
		l = sumLangs[1]
	}
	var b strings.Builder
	fmt.Fprintf(&b, l[0], firstID, lastID)
	for k, items := range [][]string{s.Resolved, s.Pending, {s.ActiveTask}} {
		title := "\n" + l[k+1]
		for _, it := range items {
			if it = fence.Inline(it); it != "" {
				b.WriteString(title + "\n- " + it)
				title = ""
			}
		}
	}
	return b.String()
}

// ParseSummary reads a summary written by Render back, in either language.
// It also takes "Active task: text" on one line and lines without a "- " as
// continuations of the item above. ok is false when text has neither a
// summary header nor a section title.
func ParseSummary(text string) (s Summary, ok bool) {
	sec := -1
	add := func(item string, cont bool) {
		if item = sumOneLine(item); item == "" {
			return
		}
		list := [2]*[]string{&s.Resolved, &s.Pending}
		switch {
		case sec == 2:
			s.ActiveTask = strings.TrimSpace(s.ActiveTask + " " + item)
		case sec < 0:
		case cont && len(*list[sec]) > 0:
			(*list[sec])[len(*list[sec])-1] += " " + item
		default:
			*list[sec] = append(*list[sec], item)
		}
	}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if item, ok := sumCutBullet(line); ok {
			add(item, false)
			continue
		}
		if strings.HasPrefix(line, "[SUMMARY") || strings.HasPrefix(line, "[СВОДКА") {
			ok = true
			continue
		}
		found := false
		for k, title := range slices.Concat(sumLangs[0][1:], sumLangs[1][1:]) {
			if len(line) >= len(title) && strings.EqualFold(line[:len(title)], title) {
				sec, ok, found = k%3, true, true
				add(line[len(title):], false)
			}
		}
		if !found {
			add(line, true)
		}
	}
	return s, ok
}

// OfflineSummary summarizes msgs without a model, extractively, and merges
// the result with prev. It reads the sentences (split at line ends and at
// . ! ? … before a space) of user and assistant messages of kind "message".
//   - Resolved: sentences, not questions, with a digit, a currency sign, a
//     date word, a capitalized word past the first (a name) or a decision
//     word (decided, agreed, ok let's, total, решили, договорились, итого…),
//     verbatim, at most 200 runes (a cut keeps the first number in view).
//   - Pending: user questions and anyone's promises ("I will", "I'll check",
//     "later", "проверю", "позже", "вернусь"…) that no later assistant
//     message answers, i.e. contains at least half of their words.Keywords
//     stems (any later assistant message answers an item without keywords).
//     A promise is never also Resolved.
//   - ActiveTask: the first sentence of the last user message, else prev's.
//   - An item (or the active task) that names a day by the day it was said
//     ("tomorrow", "last Friday", "в пятницу") ends with that day, UTC, and
//     its weekday: " (said on Fri 2026-11-27)", " (сказано в пт 2026-11-27)".
//   - Merge: prev's items first, then the new ones, deduplicated (folded,
//     one's words contained in the other's; the longer stays); prev's pending
//     items answered by an assistant message of msgs drop out.
//   - Bound (maxChars > 0): rendered in either language with the widest ids,
//     it fits maxChars runes. Items without a digit go first (oldest resolved,
//     then oldest pending), then those with one; the active task is cut last.
func OfflineSummary(prev Summary, msgs []Message, maxChars int) Summary {
	var resolved, pending []string
	task, answers := "", make([]string, len(msgs)) // folded assistant messages
	for i, m := range msgs {
		if m.Role == RoleAssistant && sumIsMessage(m) {
			answers[i] = words.Fold(m.Content)
		}
	}
	for i, m := range msgs {
		if !sumIsMessage(m) || m.Role != RoleUser && m.Role != RoleAssistant {
			continue
		}
		user := m.Role == RoleUser
		sents := sumSentences(m.Content)
		if user && len(sents) > 0 {
			task = sumItem(sents[0], m.CreatedAt)
		}
		for _, snt := range sents {
			q := strings.HasSuffix(strings.TrimRight(snt, "\"')»”!.…"), "?")
			switch {
			case user && q || sumHas(snt, sumPromiseWords):
				if !sumAnswered(snt, answers[i+1:]) {
					pending = append(pending, sumItem(snt, m.CreatedAt))
				}
			case !q && sumCarries(snt):
				resolved = append(resolved, sumItem(snt, m.CreatedAt))
			}
		}
	}
	out := Summary{ActiveTask: task}
	if task == "" {
		out.ActiveTask = sumOneLine(prev.ActiveTask)
	}
	out.Resolved = sumDedupe(nil, prev.Resolved, resolved)
	var kept []string
	for _, p := range prev.Pending {
		if !sumAnswered(Undated(p), answers) {
			kept = append(kept, p)
		}
	}
	out.Pending = sumDedupe(nil, kept, pending)
	return sumBound(out, maxChars)
}

// SummaryRequest builds the helper model's request: a system message with
// the instructions and the JSON contract ({"resolved": [...], "pending":
// [...], "active_task": "..."}), naming the conversation's language (by
// words.Lang) and, when maxChars > 0, the summary's size limit; and a user
// message with prev rendered (without its header) and the messages as
// "role (#id): content" lines, with the author and the day (UTC, with its
// weekday) when known: "role (#id, Author, Fri 2026-11-27): ". The lines
// fit in about 24,000 runes: short messages stay whole, longer ones are cut
// to a common length keeping their beginning (2/3) and end (1/3); when even
// that fails, middle messages are left out with a marker. Temperature 0,
// MaxTokens 1200.
func SummaryRequest(prev Summary, msgs []Message, maxChars int) llm.Request {
	sample := slices.Concat(prev.Resolved, prev.Pending, []string{prev.ActiveTask})
	for _, m := range msgs {
		if m.Role == RoleUser || m.Role == RoleAssistant {
			sample = append(sample, m.Content)
		}
	}
	lang := words.Lang(strings.Join(sample, "\n"))
	langName := map[string]string{"ru": "Russian", "en": "English"}[lang]
	limit := ""
	if maxChars > 0 {
		limit = fmt.Sprintf("\n- Keep the whole summary under %d characters; shorten wording, never numbers.", maxChars)
	}
	sys := `You maintain the running summary of a conversation between a user and an assistant. Merge the previous summary with the new messages into one updated summary.
Rules:
- Keep every number, price, total, quantity, name, date and decision exactly as written.
- "resolved": what was settled: decisions, answers given, numbers agreed. Keep the previous summary's resolved items unless the new messages change them.
- "pending": open questions, promised follow-ups, unanswered requests. Drop a previous pending item once the messages answer it, and put the answer in "resolved".
- "active_task": one sentence on what the user is working on now.
- Each message line gives the day it was written: write a day named relative to it ("tomorrow", "last Friday", "в пятницу") as the date it means.
- Drop greetings, thanks and chit-chat.
- Write in the conversation's language (here: ` + langName + `).` + limit + `
Answer with strict JSON only, no prose and no other keys:
{"resolved": ["..."], "pending": ["..."], "active_task": "..."}`

	prevText := "(none)"
	if r := prev.Render(lang, 0, 0); strings.Contains(r, "\n") {
		_, prevText, _ = strings.Cut(r, "\n")
	}
	user := "Previous summary:\n" + prevText + "\n\nMessages to summarize:\n" +
		strings.Join(sumFitLines(msgs, sumPromptRunes), "\n")
	t := float32(0)
	return llm.Request{
		Messages:    []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}},
		MaxTokens:   sumMaxTokens,
		Temperature: &t,
	}
}

// sumFitLines renders msgs as lines of at most budget runes in all, as
// SummaryRequest describes.
func sumFitLines(msgs []Message, budget int) []string {
	var labels []string
	var bodies [][]rune
	for _, m := range msgs {
		label := fmt.Sprintf("%s (#%d", m.Role, m.ID)
		if m.Author != "" {
			label += ", " + sumOneLine(m.Author)
		}
		if !m.CreatedAt.IsZero() {
			label += ", " + m.CreatedAt.UTC().Format("Mon 2006-01-02")
		}
		labels = append(labels, label+"): ")
		bodies = append(bodies, []rune(strings.TrimSpace(m.Content)))
	}
	cost := func(c int) (n int) {
		for i, l := range labels {
			n += utf8.RuneCountInString(l) + min(len(bodies[i]), c) + 1
		}
		return n
	}
	gap, omitted := -1, 0
	for ; len(labels) > 2 && cost(sumMinCut) > budget-40; omitted++ { // 40: the marker's line
		gap = len(labels) / 2
		labels, bodies = slices.Delete(labels, gap, gap+1), slices.Delete(bodies, gap, gap+1)
	}
	lo, hi := sumMinCut, sumMinCut // the largest cap that fits, by bisection
	for _, b := range bodies {
		hi = max(hi, len(b))
	}
	for lo < hi {
		if mid := (lo + hi + 1) / 2; cost(mid) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	mark := func(n int) string { return fmt.Sprintf(" … [%d chars cut] … ", n) }
	var lines []string
	for i, b := range bodies {
		if i == gap {
			lines = append(lines, fmt.Sprintf("… [%d messages omitted] …", omitted))
		}
		if len(b) > lo {
			keep := lo - utf8.RuneCountInString(mark(len(b)))
			b = slices.Concat(b[:keep*2/3], []rune(mark(len(b)-keep)), b[len(b)-(keep-keep*2/3):])
		}
		lines = append(lines, labels[i]+string(b))
	}
	return lines
}

// ParseSummaryAnswer reads the helper model's JSON answer; a ```json fence
// and prose around the object are allowed. An item may be a string, a number
// or any JSON value (kept as compact JSON); a single string stands for a
// one-item list. Items are put on one line and deduplicated. Every error
// wraps ErrBadSummary, including an object with none of the three keys.
func ParseSummaryAnswer(text string) (Summary, error) {
	s := text
	if _, fenced, ok := strings.Cut(s, "```"); ok {
		if nl := strings.IndexByte(fenced, '\n'); nl >= 0 && !strings.Contains(fenced[:nl], "{") {
			fenced = fenced[nl+1:]
		}
		s, _, _ = strings.Cut(fenced, "```")
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return Summary{}, fmt.Errorf("%w: no JSON object", ErrBadSummary)
	}
	var raw struct {
		Resolved   json.RawMessage `json:"resolved"`
		Pending    json.RawMessage `json:"pending"`
		ActiveTask json.RawMessage `json:"active_task"`
	}
	if err := json.Unmarshal([]byte(s[i:j+1]), &raw); err != nil {
		return Summary{}, fmt.Errorf("%w: %v", ErrBadSummary, err)
	}
	if raw.Resolved == nil && raw.Pending == nil && raw.ActiveTask == nil {
		return Summary{}, fmt.Errorf("%w: none of resolved, pending, active_task", ErrBadSummary)
	}
	var out Summary
	var task []string
	for _, f := range []struct {
		raw json.RawMessage
		to  *[]string
	}{{raw.Resolved, &out.Resolved}, {raw.Pending, &out.Pending}, {raw.ActiveTask, &task}} {
		var one string
		var list []json.RawMessage
		if len(f.raw) == 0 || json.Unmarshal(f.raw, &one) == nil {
			*f.to = sumDedupe(nil, []string{one})
		} else if err := json.Unmarshal(f.raw, &list); err != nil {
			return Summary{}, fmt.Errorf("%w: %s is not a string or a list", ErrBadSummary, f.raw)
		}
		for _, it := range list {
			if one = ""; json.Unmarshal(it, &one) != nil {
				one = string(it)
			}
			*f.to = sumDedupe(*f.to, []string{one})
		}
	}
	out.ActiveTask = strings.Join(task, "; ")
	return out, nil
}

// Worth reports whether compacting is worth it (anti-thrash): saved is what
// the pass would take out of the window, recent the savings of the last
// passes, newest last. It is not worth it when saved < minSave, or when the
// last two passes each saved less than minSave.
func Worth(saved int, recent []int, minSave int) bool {
	if saved < minSave {
		return false
	}
	n := len(recent)
	return n < 2 || recent[n-1] >= minSave || recent[n-2] >= minSave
}
