package turn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

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

// toolQuery returns the query of a search_history call, if calls hold one.
func toolQuery(calls []llm.ToolCall) (string, llm.ToolCall, bool) {
	for _, c := range calls {
		if c.Name != searchTool.Name {
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

// reply runs the model's passes (answer) for the reply's text. The
// "found" layer joins the trace whatever becomes of them; a model failure
// becomes a coded error (modelError), and an empty reply is EMODEL.
func (t *turnRun) reply(ctx context.Context) (string, error) {
	text, err := t.answer(ctx)
	if t.found.Items > 0 || len(t.tr.Searches) > 0 {
		t.tr.Layers = append(t.tr.Layers, t.found)
		t.tr.PromptChars += t.found.Chars
	}
	if err != nil {
		return "", modelError(err)
	}
	if strings.TrimSpace(text) == "" {
		return "", yakor.Errorf(yakor.EMODEL, "the model (%s) returned an empty reply", t.e.model.Model())
	}
	return text, nil
}

// answer runs the model's passes: a pass that asks to search (a marker
// line) is cut there, the search runs, and its hits go into the next pass,
// up to SearchRounds searches; then the model must answer. Text before a
// marker still reaches the user. It returns the reply's text and fills in
// the "found" layer.
func (t *turnRun) answer(ctx context.Context) (string, error) {
	cfg := t.e.cfg
	t.found = Layer{Name: LayerFound, Budget: cfg.SearchBudget * cfg.SearchRounds, MessageIDs: []int64{}}
	msgs := t.prompt.Messages
	var reply strings.Builder
	for round := 0; ; round++ {
		text, a, err := t.pass(ctx, msgs, round)
		reply.WriteString(text)
		if err != nil || a.query == "" {
			return reply.String(), err
		}
		block, err := t.search(ctx, round, a.query)
		if err != nil {
			return reply.String(), err
		}
		msgs = append(msgs, a.next(text, block)...)
	}
}

// search runs the search the model asked for in round: it records it in
// the trace and the "found" layer, streams its event, and returns its hits
// as the block for the next pass.
func (t *turnRun) search(ctx context.Context, round int, query string) (string, error) {
	e := t.e
	sres, err := e.searcher.Search(ctx, t.scope, query, search.Options{Budget: e.cfg.SearchBudget, BeforeID: SearchBefore(t.window, t.userMsg.ID)})
	if err != nil {
		return "", fmt.Errorf("search %q: %w", query, err)
	}
	if sres.SemanticErr != nil {
		e.log.WarnContext(ctx, "history search went on without its semantic leg", "turn", t.tr.ID, "err", sres.SemanticErr)
	}
	ev := SearchEvent{Round: round + 1, Query: query, Keywords: sres.Keywords, Hits: sres.Hits, Chars: sres.Chars, TookMS: ms(sres.Took)}
	st := SearchTrace{Round: ev.Round, Query: query, Keywords: sres.Keywords, HitIDs: []int64{}, Scores: []float64{}, Chars: sres.Chars, TookMS: ev.TookMS}
	for _, h := range sres.Hits {
		st.HitIDs = append(st.HitIDs, h.MessageID)
		st.Scores = append(st.Scores, h.Score)
		t.found.MessageIDs = append(t.found.MessageIDs, h.MessageID)
	}
	t.tr.Searches = append(t.tr.Searches, st)
	if err := t.fn(Event{Search: &ev}); err != nil {
		return "", err
	}
	block := search.FormatHits(t.lang, query, sres.Hits, round+1 >= e.cfg.SearchRounds)
	t.found.Chars += len([]rune(block))
	t.found.Items += len(sres.Hits)
	return block, nil
}

// ask is a search the model asked for in a pass: its query ("" when it
// asked for none), and its search_history call when it asked by function.
type ask struct {
	query string
	call  llm.ToolCall
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

// pass streams one model call of msgs with the turn's sampling through the
// marker parser and the memory scrubber (passStream). It returns the text
// it released and the search the model asked for, by marker or by a
// search_history call, when searching is allowed in round.
func (t *turnRun) pass(ctx context.Context, msgs []llm.Message, round int) (string, ask, error) {
	e := t.e
	req := t.in.Sampling.request(msgs)
	allow := round < e.cfg.SearchRounds
	s := &passStream{parser: search.NewParser(), scrub: mnemos.NewScrubber(t.memory), allow: allow, fn: t.fn}
	defer func() {
		if s.scrub.Scrubbed() {
			e.log.InfoContext(ctx, "the model echoed its memory block; the echo was taken out of the reply", "turn", t.tr.ID)
		}
	}()
	start := time.Now()
	first := true
	if allow && e.cfg.SearchTool {
		req.Tools = []llm.Tool{searchTool}
	}
	res, err := e.model.Stream(ctx, req, func(delta string) error {
		if first && round == 0 {
			t.tr.Timings["first_delta"] = ms(time.Since(start))
		}
		first = false
		return s.emit(s.parser.Feed(delta))
	})
	t.tr.Timings["model"] += ms(time.Since(start))
	t.use.add(res, req.Messages)
	if res.Model != "" {
		t.tr.Model = res.Model
	}
	if err := s.end(err); err != nil {
		return s.out.String(), ask{}, err
	}
	if s.query == "" && allow {
		if q, c, ok := toolQuery(res.ToolCalls); ok {
			return s.out.String(), ask{query: q, call: c}, nil
		}
	}
	return s.out.String(), ask{query: s.query}, nil
}

// passStream is one pass's output on its way to the caller: the marker
// parser holds back marker lines, the first allowed one stops the pass
// (errMarker), and the scrubber takes out any echo of the prompt's memory
// block.
type passStream struct {
	parser *search.Parser
	scrub  *mnemos.Scrubber
	allow  bool // a marker asks to search
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
	if err != nil {
		return err
	}
	if err := s.emit(s.parser.Flush()); err != nil && !errors.Is(err, errMarker) {
		return err
	}
	return s.release(s.scrub.Flush())
}
