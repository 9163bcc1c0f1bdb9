package turn

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/history"
	"yakor/llm"
	"yakor/postgres"
	"yakor/search"
	"yakor/words"
)

// Preview is the prompt a message would get, for an app that calls its own
// model (memory-only mode): the prompt, and the history search a model
// would ask for, run on the message itself.
type Preview struct {
	Prompt Prompt
	Search search.Result
}

// Preview builds the prompt message would get in scope's thread as a turn
// builds it (window, anchors, facts, long-term memory), and runs the
// history search on the message, its hits joining the prompt before the
// message as the "found" layer; as in a turn, the window's oldest messages
// give way so that the prompt with the hits keeps the prompt budget.
// Nothing is stored and no model is called; the system prompt asks for no
// search marker (the app's model is not Yakor's).
func (e *Engine) Preview(ctx context.Context, scope yakor.Scope, message string) (Preview, error) {
	if err := history.ValidateContent(message, e.cfg.MaxMessageChars); err != nil {
		return Preview{}, err
	}
	thread, err := e.history.FindThread(ctx, scope)
	if err != nil {
		return Preview{}, err
	}
	lang := words.Lang(message)
	pt, _, err := e.readParts(ctx, scope, thread, 0, func([]history.Message) string { return lang }, true)
	if err != nil {
		return Preview{}, err
	}
	window := pt.window
	t := &turnRun{e: e, scope: scope, lang: lang, tr: Trace{Timings: map[string]float64{}}}
	pt.tail = []llm.Message{{Role: "user", Content: message}}
	pt.memory = t.recall(ctx, message)
	t.parts, t.window, t.prompt = pt, window, assemble(pt)
	// As a turn's search does: the window's oldest messages give way for
	// the hits (the prompt budget), and the search reaches them.
	room := t.room(nil)
	q := []rune(message)
	query := string(q[:min(len(q), search.MaxQueryChars)])
	res, err := e.searcher.Search(ctx, scope, query, search.Options{Budget: room, BeforeID: SearchBefore(t.window, 0)})
	if err != nil {
		return Preview{}, fmt.Errorf("search %q: %w", query, err)
	}
	if len(res.Hits) == 0 {
		return Preview{Prompt: t.prompt, Search: res}, nil
	}
	var block string
	res.Hits, block = fitHits(res.Hits, room, func(h []search.Hit) string { return search.FormatHits(lang, query, h, true) })
	t.fit(utf8.RuneCountInString(block)) // only when a single hit passes the room
	p := t.prompt
	found := Layer{Name: LayerFound, Chars: utf8.RuneCountInString(block), Budget: e.cfg.SearchBudget, Items: len(res.Hits), Text: block}
	for _, h := range res.Hits {
		found.MessageIDs = append(found.MessageIDs, h.MessageID)
	}
	last := len(p.Messages) - 1
	p.Messages = append(p.Messages[:last], llm.Message{Role: "system", Content: block}, p.Messages[last])
	p.Layers = append(p.Layers, found)
	return Preview{Prompt: p, Search: res}, nil
}

// Import appends msgs to scope's thread without running turns (a message
// whose client id the thread holds is not stored again), and hands the
// thread's memory upkeep up to them to the jobs (anchors, facts,
// compaction, embeddings; nothing is graded), in one transaction. It
// returns the messages stored.
func (e *Engine) Import(ctx context.Context, scope yakor.Scope, msgs []history.NewMessage) ([]history.Message, error) {
	for i, m := range msgs {
		if err := history.ValidateContent(m.Content, e.cfg.MaxMessageChars); err != nil {
			return nil, yakor.Errorf(yakor.ErrorCode(err), "messages[%d].content: %s", i, yakor.ErrorMessage(err))
		}
	}
	var created []history.Message
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		var err error
		if created, err = e.history.WithTx(tx).ImportMessages(ctx, scope, msgs); err != nil || len(created) == 0 || e.jobs == nil {
			return err
		}
		last := created[len(created)-1].ID
		return e.jobs.EnqueueAfterTurn(ctx, tx, scope, AfterTurn{ReplyID: last, Anchor: e.anchors != nil && e.cfg.AnchorMode != AnchorOff, Imported: true})
	})
	if err != nil && yakor.ErrorCode(err) == yakor.EINTERNAL {
		err = postgres.Wrap("import messages", err)
	}
	return created, err
}
