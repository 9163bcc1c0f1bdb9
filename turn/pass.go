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

// answer runs the model's passes: a pass that asks to search (a marker
// line) is cut there, the search runs, and its hits go into the next pass,
// up to SearchRounds searches; then the model must answer. Text before a
// marker still reaches the user. It returns the reply's text and the
// "found" layer.
func (e *Engine) answer(ctx context.Context, scope yakor.Scope, msgs []llm.Message, lang string, beforeID int64, memory string, sampling Sampling, use *Usage, tr *Trace, fn func(Event) error) (string, Layer, error) {
	found := Layer{Name: LayerFound, Budget: e.cfg.SearchBudget * e.cfg.SearchRounds, MessageIDs: []int64{}}
	var reply strings.Builder
	for round := 0; ; round++ {
		allow := round < e.cfg.SearchRounds
		query, call, text, err := e.pass(ctx, sampling.request(msgs), allow, memory, fn, use, tr, round)
		reply.WriteString(text)
		if err != nil {
			return reply.String(), found, err
		}
		if query == "" {
			return reply.String(), found, nil
		}
		sres, err := e.searcher.Search(ctx, scope, query, search.Options{Budget: e.cfg.SearchBudget, BeforeID: beforeID})
		if err != nil {
			return reply.String(), found, fmt.Errorf("search %q: %w", query, err)
		}
		if sres.SemanticErr != nil {
			e.log.WarnContext(ctx, "history search went on without its semantic leg", "turn", tr.ID, "err", sres.SemanticErr)
		}
		ev := SearchEvent{Round: round + 1, Query: query, Keywords: sres.Keywords, Hits: sres.Hits, Chars: sres.Chars, TookMS: ms(sres.Took)}
		st := SearchTrace{Round: ev.Round, Query: query, Keywords: sres.Keywords, HitIDs: []int64{}, Scores: []float64{}, Chars: sres.Chars, TookMS: ev.TookMS}
		for _, h := range sres.Hits {
			st.HitIDs = append(st.HitIDs, h.MessageID)
			st.Scores = append(st.Scores, h.Score)
			found.MessageIDs = append(found.MessageIDs, h.MessageID)
		}
		tr.Searches = append(tr.Searches, st)
		if err := fn(Event{Search: &ev}); err != nil {
			return reply.String(), found, err
		}
		block := search.FormatHits(lang, query, sres.Hits, round+1 >= e.cfg.SearchRounds)
		found.Chars += len([]rune(block))
		found.Items += len(sres.Hits)
		if call.ID != "" {
			msgs = append(msgs,
				llm.Message{Role: "assistant", Content: text, ToolCalls: []llm.ToolCall{call}},
				llm.Message{Role: "tool", ToolCallID: call.ID, Content: block})
		} else {
			msgs = append(msgs,
				llm.Message{Role: "assistant", Content: strings.TrimSpace(text + "\n" + search.Marker(query))},
				llm.Message{Role: "user", Content: block})
		}
	}
}

// pass streams one model call through the marker parser and the memory
// scrubber (which takes out any echo of the prompt's memory block). It
// returns the query when the model asked to search (and searching is
// allowed), by marker or by a search_history call (then call is set), and
// the text it released. req carries the messages and the turn's sampling.
func (e *Engine) pass(ctx context.Context, req llm.Request, allow bool, memory string, fn func(Event) error, use *Usage, tr *Trace, round int) (query string, call llm.ToolCall, text string, err error) {
	parser := search.NewParser()
	scrub := mnemos.NewScrubber(memory)
	var out strings.Builder
	release := func(text string) error {
		if text == "" {
			return nil
		}
		out.WriteString(text)
		return fn(Event{Text: text})
	}
	defer func() {
		if scrub.Scrubbed() {
			e.log.InfoContext(ctx, "the model echoed its memory block; the echo was taken out of the reply", "turn", tr.ID)
		}
	}()
	emit := func(pieces []search.Piece) error {
		for _, p := range pieces {
			if p.Query != "" {
				if allow && query == "" {
					query = p.Query
					return errMarker
				}
				continue // a marker past the last round is dropped
			}
			if query != "" || p.Text == "" {
				continue
			}
			if err := release(scrub.Feed(p.Text)); err != nil {
				return err
			}
		}
		return nil
	}
	start := time.Now()
	first := true
	if allow && e.cfg.SearchTool {
		req.Tools = []llm.Tool{searchTool}
	}
	res, err := e.model.Stream(ctx, req, func(delta string) error {
		if first && round == 0 {
			tr.Timings["first_delta"] = ms(time.Since(start))
		}
		first = false
		return emit(parser.Feed(delta))
	})
	tr.Timings["model"] += ms(time.Since(start))
	use.add(res, req.Messages)
	if res.Model != "" {
		tr.Model = res.Model
	}
	if errors.Is(err, errMarker) {
		if err := release(scrub.Flush()); err != nil {
			return "", llm.ToolCall{}, out.String(), err
		}
		return query, llm.ToolCall{}, out.String(), nil
	}
	if err != nil {
		return "", llm.ToolCall{}, out.String(), err
	}
	if err := emit(parser.Flush()); err != nil && !errors.Is(err, errMarker) {
		return "", llm.ToolCall{}, out.String(), err
	}
	if err := release(scrub.Flush()); err != nil {
		return "", llm.ToolCall{}, out.String(), err
	}
	if query == "" && allow {
		if q, c, ok := toolQuery(res.ToolCalls); ok {
			return q, c, out.String(), nil
		}
	}
	return query, llm.ToolCall{}, out.String(), nil
}
