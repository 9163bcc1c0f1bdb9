package turn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"yakor"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/search"
)

// Searcher searches a thread's history for the model.
type Searcher interface {
	Search(ctx context.Context, scope yakor.Scope, query string, opt search.Options) (search.Result, error)
}

// Event is what a turn streams to its caller: a piece of the reply, or a
// search the model made.
type Event struct {
	Text   string
	Search *SearchEvent
	TurnID string // the turn's id, known before its first event
}

// SearchEvent is one search of a turn, with its hits.
type SearchEvent struct {
	Round    int          `json:"round"`
	Query    string       `json:"query"`
	Keywords []string     `json:"keywords"`
	Hits     []search.Hit `json:"hits"`
	Chars    int          `json:"chars"`
	TookMS   float64      `json:"took_ms"`
}

// SearchTrace is a search as the turn record keeps it: the hits by id.
type SearchTrace struct {
	Round    int       `json:"round"`
	Query    string    `json:"query"`
	Keywords []string  `json:"keywords"`
	Related  []string  `json:"related,omitempty"` // stems of the related words searched too
	HitIDs   []int64   `json:"hit_ids"`
	Scores   []float64 `json:"scores"`
	Chars    int       `json:"chars"`
	TookMS   float64   `json:"took_ms"`
}

// errMarker stops a model's stream once it has asked to search.
var errMarker = errors.New("search marker")

// searchTool offers the search as a function to model servers that
// support tools (Config.SearchTool); the marker works with every model.
var searchTool = llm.Tool{
	Name:        "search_history",
	Description: "Search this conversation's whole history for earlier messages that are no longer in view (prices, lists, totals, names, dates, decisions). Returns the messages found, oldest first, with their dates and authors.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"a few distinctive words the earlier message would contain"}},"required":["query"]}`),
}

// toolQuery returns the query of a call of Yakor's search (named name),
// if calls hold one.
func toolQuery(calls []llm.ToolCall, name string) (string, llm.ToolCall, bool) {
	for _, c := range calls {
		if c.Name != name {
			continue
		}
		var args struct {
			Query string `json:"query"`
		}
		if json.Unmarshal([]byte(c.Arguments), &args) != nil {
			continue
		}
		q := []rune(strings.TrimSpace(args.Query))
		if len(q) == 0 {
			continue
		}
		return string(q[:min(len(q), search.MaxQueryChars)]), c, true
	}
	return "", llm.ToolCall{}, false
}

// callerCalls are the calls of the caller's tools among calls: every call
// but Yakor's search (named ours), which the caller never sees.
func callerCalls(calls []llm.ToolCall, ours string) []llm.ToolCall {
	var out []llm.ToolCall
	for _, c := range calls {
		if c.Name != ours {
			out = append(out, c)
		}
	}
	return out
}

// reply runs the model's passes (answer) for the reply's text and its
// calls of the caller's tools. The "found" layer joins the trace whatever
// becomes of them; a model failure becomes a coded error (modelError), and
// an empty reply without calls is EMODEL.
func (t *turnRun) reply(ctx context.Context) (string, []llm.ToolCall, error) {
	text, calls, err := t.answer(ctx)
	if t.found.Items > 0 || len(t.tr.Searches) > 0 {
		t.tr.Layers = append(t.tr.Layers, t.found)
		t.tr.PromptChars += t.found.Chars
	}
	if err != nil {
		return "", nil, modelError(err)
	}
	if strings.TrimSpace(t.in.Prefill+text) == "" && len(calls) == 0 {
		return "", nil, yakor.Errorf(yakor.EMODEL, "the model (%s) returned an empty reply", t.e.model.Model())
	}
	if len(calls) > 0 {
		t.use.FinishReason = "tool_calls"
	}
	return text, calls, nil
}

// answer runs the model's passes: a pass that asks to search (a marker
// line, or a call of Yakor's search) is cut there, the search runs, and its
// hits go into the next pass, up to SearchRounds searches; then the model
// must answer. Text before a marker still reaches the user. It returns the
// reply's text and the caller's tools it called, and fills in the "found"
// layer.
func (t *turnRun) answer(ctx context.Context) (string, []llm.ToolCall, error) {
	cfg := t.e.cfg
	t.found = Layer{Name: LayerFound, Budget: cfg.SearchBudget * cfg.SearchRounds, MessageIDs: []int64{}}
	msgs := t.prompt.Messages
	var extra []llm.Message // what the passes added after the prompt
	var reply strings.Builder
	for round := 0; ; round++ {
		text, a, err := t.pass(ctx, msgs, round)
		reply.WriteString(text)
		if err != nil || a.query == "" {
			return reply.String(), a.calls, err
		}
		pending := a.next(text, "")
		budget := t.room(slices.Concat(extra, pending))
		block, err := t.search(ctx, round, a.query, budget)
		if err != nil {
			return reply.String(), nil, err
		}
		extra = append(extra, a.next(text, block)...)
		t.fit(chars(extra)) // only when a single hit passes the room
		msgs = slices.Concat(t.prompt.Messages, extra)
	}
}

// search runs the search the model asked for in round: it records it in
// the trace and the "found" layer, streams its event, and returns its hits
// as the block for the next pass.
func (t *turnRun) search(ctx context.Context, round int, query string, budget int) (string, error) {
	e := t.e
	sres, err := e.searcher.Search(ctx, t.scope, query, search.Options{Budget: budget, BeforeID: SearchBefore(t.window, t.first)})
	if err != nil {
		return "", fmt.Errorf("search %q: %w", query, err)
	}
	if sres.SemanticErr != nil {
		e.log.WarnContext(ctx, "history search went on without its semantic leg", "turn", t.tr.ID, "err", sres.SemanticErr)
	}
	final := round+1 >= e.cfg.SearchRounds
	var block string
	sres.Hits, block = fitHits(sres.Hits, budget, func(h []search.Hit) string { return search.FormatHits(t.lang, query, h, final) })
	sres.Chars = hitChars(sres.Hits)
	ev := SearchEvent{Round: round + 1, Query: query, Keywords: sres.Keywords, Hits: sres.Hits, Chars: sres.Chars, TookMS: ms(sres.Took)}
	st := SearchTrace{Round: ev.Round, Query: query, Keywords: sres.Keywords, Related: sres.Related, HitIDs: []int64{}, Scores: []float64{}, Chars: sres.Chars, TookMS: ev.TookMS}
	for _, h := range sres.Hits {
		st.HitIDs = append(st.HitIDs, h.MessageID)
		st.Scores = append(st.Scores, h.Score)
		t.found.MessageIDs = append(t.found.MessageIDs, h.MessageID)
	}
	t.tr.Searches = append(t.tr.Searches, st)
	if err := t.fn(Event{Search: &ev}); err != nil {
		return "", err
	}
	t.found.Chars += len([]rune(block))
	t.found.Items += len(sres.Hits)
	return block, nil
}

// ask is what the model asked for in a pass: a search (its query, "" when
// it asked for none, and its call when it asked by function), or calls of
// the caller's tools, which end the turn.
type ask struct {
	query string
	call  llm.ToolCall
	calls []llm.ToolCall
}

// next is what the next pass's prompt adds after the search: the pass's
// text with the request, as the model made it, and block, the hits.
func (a ask) next(text, block string) []llm.Message {
	if a.call.ID != "" {
		return []llm.Message{
			{Role: "assistant", Content: text, ToolCalls: []llm.ToolCall{a.call}},
			{Role: "tool", ToolCallID: a.call.ID, Content: block},
		}
	}
	return []llm.Message{
		{Role: "assistant", Content: strings.TrimSpace(text + "\n" + search.Marker(a.query))},
		{Role: "user", Content: block},
	}
}

// pass streams one model call of msgs with the turn's sampling and tools
// through the marker parser and the memory scrubber (passStream). It
// returns the text it released and what the model asked for: a search, by
// marker or by a call of Yakor's search, when searching is allowed in
// round, or calls of the caller's tools.
func (t *turnRun) pass(ctx context.Context, msgs []llm.Message, round int) (string, ask, error) {
	e := t.e
	req := t.in.Sampling.request(msgs)
	allow := round < e.cfg.SearchRounds
	raw := t.in.Sampling.JSON() // a JSON reply is passed as it is
	s := &passStream{parser: search.NewParser(), scrub: mnemos.NewScrubber(t.memory), allow: allow && !raw, raw: raw, fn: t.fn}
	defer func() {
		if s.scrub.Scrubbed() {
			e.log.InfoContext(ctx, "the model echoed its memory block; the echo was taken out of the reply", "turn", t.tr.ID)
		}
	}()
	start := time.Now()
	first := true
	ours := t.offerTools(&req, allow)
	req.MaxReplyChars = max(e.cfg.MaxReplyChars-t.replied, 1)
	res, err := e.model.Stream(ctx, req, func(delta string) error {
		if first && round == 0 {
			t.tr.Timings["first_delta"] = ms(time.Since(start))
		}
		first = false
		return s.feed(delta)
	})
	t.tr.Timings["model"] += ms(time.Since(start))
	t.use.add(res, req.Messages)
	t.logProbs = res.LogProbs
	if res.Model != "" {
		t.tr.Model = res.Model
	}
	endErr := s.end(err)
	t.replied += utf8.RuneCountInString(s.out.String())
	if endErr != nil {
		return s.out.String(), ask{}, endErr
	}
	if res.Truncated {
		// A runaway reply: kept as far as the limit, and the turn says so.
		t.tr.Error = fmt.Sprintf("the reply was cut at %d characters (--max-reply-chars)", e.cfg.MaxReplyChars)
		e.log.WarnContext(ctx, "the model's reply was cut at the limit", "turn", t.tr.ID, "max_reply_chars", e.cfg.MaxReplyChars)
		return s.out.String(), ask{}, nil
	}
	if s.query == "" && allow && ours != "" {
		if q, c, ok := toolQuery(res.ToolCalls, ours); ok {
			return s.out.String(), ask{query: q, call: c}, nil
		}
	}
	return s.out.String(), ask{query: s.query, calls: callerCalls(res.ToolCalls, ours)}, nil
}

// offerTools puts the caller's tools and, when searching is allowed, Yakor's
// search into req; it returns the name Yakor's search goes by ("" when not
// offered).
func (t *turnRun) offerTools(req *llm.Request, allow bool) string {
	caller := t.in.Tools
	req.Tools = append(req.Tools, caller.Tools...)
	req.ToolChoice, req.ParallelToolCalls = caller.Choice, caller.Parallel
	if !allow || (len(caller.Tools) == 0 && !t.e.cfg.SearchTool) {
		return ""
	}
	tool := searchTool
	tool.Name = searchToolName(caller.Tools)
	req.Tools = append(req.Tools, tool)
	return tool.Name
}

// passStream is one pass's output on its way to the caller: the marker
// parser holds back marker lines, the first allowed one stops the pass
// (errMarker), and the scrubber takes out any echo of the prompt's memory
// block.
type passStream struct {
	parser *search.Parser
	scrub  *mnemos.Scrubber
	allow  bool // a marker asks to search
	raw    bool // the text is passed as it is: no markers, no scrubbing (a JSON reply)
	fn     func(Event) error
	query  string          // the query of the marker that stopped the pass
	out    strings.Builder // the text released
}

// release sends text to the caller.
func (s *passStream) release(text string) error {
	if text == "" {
		return nil
	}
	s.out.WriteString(text)
	return s.fn(Event{Text: text})
}

// feed takes one delta of the model's stream.
func (s *passStream) feed(delta string) error {
	if s.raw {
		return s.release(delta)
	}
	return s.emit(s.parser.Feed(delta))
}

// emit releases the parser's pieces up to the first allowed marker.
func (s *passStream) emit(pieces []search.Piece) error {
	for _, p := range pieces {
		if p.Query != "" {
			if s.allow && s.query == "" {
				s.query = p.Query
				return errMarker
			}
			continue // a marker past the last round is dropped
		}
		if s.query != "" || p.Text == "" {
			continue
		}
		if err := s.release(s.scrub.Feed(p.Text)); err != nil {
			return err
		}
	}
	return nil
}

// end ends the stream once the model call returned err: what the parser
// and the scrubber still hold is released, unless the call failed.
func (s *passStream) end(err error) error {
	if errors.Is(err, errMarker) {
		return s.release(s.scrub.Flush())
	}
	if err != nil || s.raw {
		return err
	}
	if err := s.emit(s.parser.Flush()); err != nil && !errors.Is(err, errMarker) {
		return err
	}
	return s.release(s.scrub.Flush())
}
