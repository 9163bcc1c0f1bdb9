// Package turn runs one conversation turn end to end: it stores the user's
// message first, assembles the prompt from the memory layers with a size
// account per layer, streams the model, and stores the reply together with
// the turn's trace. It owns the turns table.
package turn

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/anchors"
	"yakor/history"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/search"
	"yakor/words"
)

// Model is the chat model a turn streams its answer from.
type Model interface {
	Stream(ctx context.Context, req llm.Request, fn func(delta string) error) (llm.Result, error)
	Provider() string
	Model() string
}

// Config holds the turn's settings.
type Config struct {
	WindowChars     int           // history window budget in characters; default 20,000
	MaxMessageChars int           // longest user message accepted; default 100,000
	MaxReplyChars   int           // longest reply stored: a longer one is cut; default 100,000
	SystemPrompt    string        // "" uses the built-in one
	StaleTurnAfter  time.Duration // a turn running longer is taken for abandoned; default 15m
	SearchRounds    int           // searches the model may make in one turn; 0: none (DefaultConfig: 2)
	SearchBudget    int           // characters of hits per search, their framing included; default 18,000 (three fifths of the prompt)
	// PromptChars bounds a whole prompt, with what its searches find: the
	// window's oldest messages (never its summary) give way to fit it, and
	// a search finds no more than is left; default 30,000.
	PromptChars int
	// SearchTool also offers the search as a search_history function, for
	// model servers that support tools; the marker works either way.
	SearchTool bool
	// AnchorMode is when messages are anchored: AnchorAsync (default: a
	// durable job after the reply), AnchorSync (before the answer, so the
	// message's own topic is in its prompt) or AnchorOff.
	AnchorMode string
	// FactBudget and AnchorBudget are the facts and anchors blocks'
	// budgets, shown in traces.
	FactBudget   int
	AnchorBudget int
}

// Anchor modes.
const (
	AnchorAsync = "async"
	AnchorSync  = "sync"
	AnchorOff   = "off"
)

// Anchors keeps a thread's anchors.
type Anchors interface {
	QueueBlock(b *pgx.Batch, scope yakor.Scope) func(pgx.BatchResults) (func(lang string) (string, int), error)
	Apply(ctx context.Context, scope yakor.Scope, upTo int64) ([]anchors.Applied, error)
	Decisions(ctx context.Context, scope yakor.Scope, messageIDs []int64) ([]anchors.DecisionRecord, error)
}

// Jobs enqueues post-turn work inside the transaction that stores the reply.
type Jobs interface {
	EnqueueAfterTurn(ctx context.Context, tx pgx.Tx, scope yakor.Scope, a AfterTurn) error
}

// AfterTurn is the work a stored turn leaves to the job queue.
type AfterTurn struct {
	UserMessageID int64
	ReplyID       int64
	// Anchor asks to anchor the thread up to the reply.
	Anchor bool
	// Imported says the messages up to ReplyID were imported, not a turn:
	// the thread's memory is brought up to them, and nothing is graded.
	Imported bool
}

// Memory is long-term memory: what a message calls up, and the grades of
// replies.
type Memory interface {
	Recall(ctx context.Context, scope yakor.Scope, message, lang string) (mnemos.Recall, error)
	Grades(ctx context.Context, scope yakor.Scope, replyID int64) ([]mnemos.Grade, error)
}

// Facts is the facts layer: the block of the facts a thread sees, and the
// record that they went into a prompt.
type Facts interface {
	QueueBlock(b *pgx.Batch, scope yakor.Scope) func(pgx.BatchResults) (func(lang string) (string, []int64), error)
	MarkUsed(ctx context.Context, scope yakor.Scope, ids []int64) error
}

// DefaultConfig is the engine's configuration as yakor serve runs it
// unless told otherwise; its numbers are the settings' defaults.
func DefaultConfig() Config {
	return Config{
		WindowChars: 20_000, MaxMessageChars: 100_000, MaxReplyChars: 100_000, StaleTurnAfter: 15 * time.Minute,
		SearchRounds: 2, SearchBudget: 18_000, PromptChars: 30_000, AnchorMode: AnchorAsync,
	}
}

// defaults fills the settings that cannot be zero from DefaultConfig.
func (c *Config) defaults() {
	d := DefaultConfig()
	c.WindowChars = cmp.Or(max(c.WindowChars, 0), d.WindowChars)
	c.MaxMessageChars = cmp.Or(max(c.MaxMessageChars, 0), d.MaxMessageChars)
	c.MaxReplyChars = cmp.Or(max(c.MaxReplyChars, 0), d.MaxReplyChars)
	c.StaleTurnAfter = cmp.Or(max(c.StaleTurnAfter, 0), d.StaleTurnAfter)
	c.SearchRounds = max(c.SearchRounds, 0)
	c.SearchBudget = cmp.Or(max(c.SearchBudget, 0), d.SearchBudget)
	c.PromptChars = cmp.Or(max(c.PromptChars, 0), d.PromptChars)
	if c.AnchorMode == "" {
		c.AnchorMode = d.AnchorMode
	}
}

// DB is what the engine needs of the database: the service role's pool
// (postgres.DB), whose transactions act in the context's tenant, or a pool.
type DB interface {
	history.DB
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Engine runs turns.
type Engine struct {
	pool     DB
	history  *history.Store
	searcher Searcher
	anchors  Anchors // nil: no anchors layer
	memory   Memory  // nil: no long-term memory layer
	jobs     Jobs    // nil: nothing enqueued
	model    Model
	cfg      Config
	// memoryBudget is the memory layer's budget, shown in traces.
	memoryBudget int
	factLayer    Facts // nil: no facts layer
	log          *slog.Logger
	metrics      *Metrics
	// unrecorded are failed turns the database did not take the failure of.
	unrecorded *unrecorded
}

// NewEngine returns an Engine. metrics may be nil.
func NewEngine(pool DB, model Model, cfg Config, log *slog.Logger, metrics *Metrics) *Engine {
	cfg.defaults()
	return &Engine{pool: pool, history: history.NewStore(pool), searcher: search.NewSearcher(pool), model: model, cfg: cfg, log: log, metrics: metrics,
		unrecorded: &unrecorded{}}
}

// WithAnchors adds the anchors layer: anchors keeps them.
func (e *Engine) WithAnchors(a Anchors) *Engine {
	e.anchors = a
	return e
}

// WithMemory adds the long-term memory layer; memoryBudget is its size in
// characters, for the trace.
func (e *Engine) WithMemory(m Memory, memoryBudget int) *Engine {
	e.memory, e.memoryBudget = m, memoryBudget
	return e
}

// WithFacts adds the facts layer.
func (e *Engine) WithFacts(f Facts) *Engine {
	e.factLayer = f
	return e
}

// WithSearcher replaces the history searcher (e.g. with one that has a
// semantic leg).
func (e *Engine) WithSearcher(s Searcher) *Engine {
	e.searcher = s
	return e
}

// WithJobs hands post-turn work (anchoring, grading, embedding) to jobs.
func (e *Engine) WithJobs(j Jobs) *Engine {
	e.jobs = j
	return e
}

// Usage is what a turn's model calls took, summed over its passes (a
// search adds one).
type Usage struct {
	// PromptTokens and CompletionTokens are the model server's counts;
	// Counted is false when any pass came without them (the offline model,
	// a server that does not report usage), and then they are incomplete.
	PromptTokens     int
	CompletionTokens int
	Counted          bool
	// PromptChars is the characters sent over all passes, for an estimate
	// where tokens were not counted.
	PromptChars int
	// Passes is the number of model calls.
	Passes int
	// FinishReason is why the last pass stopped, as the model server says it
	// ("stop", "length"…), "" when unknown.
	FinishReason string
}

func (u *Usage) add(res llm.Result, msgs []llm.Message) {
	if u.Passes == 0 {
		u.Counted = true
	}
	u.Passes++
	u.PromptTokens += res.PromptTokens
	u.CompletionTokens += res.CompletionTokens
	u.Counted = u.Counted && res.PromptTokens > 0
	for _, m := range msgs {
		u.PromptChars += utf8.RuneCountInString(m.Content)
	}
	u.FinishReason = res.FinishReason
}

// Outcome is a finished turn.
type Outcome struct {
	UserMessage history.Message
	Reply       history.Message
	TurnID      string
	// Replayed reports that the message had been answered before (a retried
	// send): nothing was written and the model was not called.
	Replayed bool
	// Usage is what the model calls took (zero for a replay).
	Usage Usage
	// Text is the reply as the model wrote it: without the caller's
	// prefill, and without its tool calls written out (Reply.Content has
	// both); ToolCalls are its calls of the caller's tools.
	Text      string
	ToolCalls []llm.ToolCall
	// LogProbs are the last pass's log probabilities, when asked for and
	// not streamed.
	LogProbs json.RawMessage
}

// Send runs one turn in scope's thread. The user's message is stored before
// the model is called and stays stored whatever happens next. fn receives
// the reply's text as it streams, and each search the model makes, each
// event naming the turn; an error from fn stops the turn. A SEARCH_HISTORY marker in the model's
// output never reaches fn; one in the user's message is plain text. A send
// with a client id that was answered before returns that answer without
// calling fn. Errors: EINVALID/ETOOLARGE (bad content), ENOTFOUND (thread),
// ECONFLICT (the same message is being answered), EMODEL/ETIMEOUT (the
// model failed; the turn is recorded as failed), EUNAVAILABLE (database).
func (e *Engine) Send(ctx context.Context, scope yakor.Scope, in Input, fn func(Event) error) (Outcome, error) {
	t, err := e.newRun(ctx, scope, in, fn)
	if err != nil {
		return Outcome{}, err
	}
	if replayed, err := t.open(ctx); err != nil || replayed.Replayed {
		return replayed, err
	}
	if err := t.buildPrompt(ctx); err != nil {
		return Outcome{}, t.fail(err)
	}
	text, calls, err := t.reply(ctx)
	if err != nil {
		return Outcome{}, t.fail(err)
	}
	reply, err := t.storeReply(ctx, text, calls)
	if err != nil {
		return Outcome{}, t.fail(err)
	}
	e.metrics.observe(t.tr)
	t.markUsed(ctx)
	return Outcome{UserMessage: t.userMsg, Reply: reply, TurnID: t.tr.ID, Usage: t.use, Text: text, ToolCalls: calls, LogProbs: t.logProbs}, nil
}

// turnRun is one turn in progress: what Send checks, finds, stores and
// builds once, for its steps to share. Its steps, in order: open (store the
// message, begin the turn), buildPrompt, reply (the model's passes),
// storeReply and markUsed; fail ends a turn that failed after open.
type turnRun struct {
	e      *Engine
	scope  yakor.Scope
	thread history.Thread // found once, at the start
	in     Input
	start  time.Time
	fn     func(Event) error // the caller's; each event is named with the turn

	userMsg history.Message   // stored by open: the user's message, or the last tool result
	calling history.Message   // the reply whose tool calls the turn's results answer (ToolResults)
	first   int64             // the turn's first message: the window and searches look before it
	results []history.Message // the tool results, stored by open
	tr      Trace             // the turn's record (layers, timings, searches), from open on
	use     Usage             // what the model calls took

	lang    string            // the conversation's language, from the message
	window  []history.Message // the prompt's window
	memory  string            // the prompt's long-term memory block, scrubbed from the reply
	factIDs []int64           // the facts in the prompt
	prompt  Prompt
	parts   parts // what the prompt was assembled from
	found   Layer // the hits of the model's searches, for the trace

	logProbs json.RawMessage // the last pass's
	replied  int             // characters of the reply so far, over the passes
}

// newRun starts a turn: it checks the message and finds the thread, the one
// time a turn looks it up.
func (e *Engine) newRun(ctx context.Context, scope yakor.Scope, in Input, fn func(Event) error) (*turnRun, error) {
	t := &turnRun{e: e, scope: scope, in: in, start: time.Now()}
	if err := t.validate(); err != nil {
		return nil, err
	}
	thread, err := e.history.FindThread(ctx, scope)
	if err != nil {
		return nil, err
	}
	t.thread = thread
	if len(in.ToolResults) > 0 {
		if t.calling, err = e.toolCalls(ctx, scope, in.ToolResults); err != nil {
			return nil, err
		}
	}
	t.fn = func(ev Event) error {
		ev.TurnID = t.tr.ID
		return fn(ev)
	}
	return t, nil
}

// modelError turns a model failure into a coded error a user can act on.
func modelError(err error) error {
	if yakor.ErrorCode(err) != yakor.EINTERNAL {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("the request was canceled before the reply was complete: %w", err)
	}
	var le *llm.Error
	if errors.As(err, &le) {
		if le.Timeout {
			return fmt.Errorf("%w: %w", yakor.Errorf(yakor.ETIMEOUT, "the model server did not answer in time: %s", le.Public()), err)
		}
		return fmt.Errorf("%w: %w", yakor.Errorf(yakor.EMODEL, "the model server failed: %s", le.Public()), err)
	}
	return fmt.Errorf("%w: %w", yakor.Errorf(yakor.EMODEL, "the model failed"), err)
}

// Context returns the prompt the next turn of scope's thread would send, with
// an empty message layer.
func (e *Engine) Context(ctx context.Context, scope yakor.Scope) (Prompt, error) {
	thread, err := e.history.FindThread(ctx, scope)
	if err != nil {
		return Prompt{}, err
	}
	pt, _, err := e.readParts(ctx, scope, thread, 0, func(window []history.Message) string {
		if len(window) == 0 {
			return "en"
		}
		return words.Lang(window[len(window)-1].Content)
	}, false)
	if err != nil {
		return Prompt{}, err
	}
	return assemble(pt), nil
}

// SearchBefore is the message a turn's searches look before: the first of
// the window's run of newest messages, so hits add what the window lacks.
// A compacted window leads with the thread's first exchange and a summary;
// the run starts after what the summary covers.
func SearchBefore(window []history.Message, userMsg int64) int64 {
	after := int64(0)
	for _, m := range window {
		if m.Kind == history.KindSummary {
			after = max(after, m.SummaryThrough)
		}
	}
	for _, m := range window {
		if m.Kind != history.KindSummary && m.ID > after {
			return m.ID
		}
	}
	return userMsg
}

// recall calls up the long-term memory for the turn's message. Memory
// helps a turn but is not needed for one: when it fails (an embedding
// server down), the turn goes on without it, and the trace says why.
func (t *turnRun) recall(ctx context.Context, question string) mnemos.Recall {
	e, tr := t.e, &t.tr
	if e.memory == nil {
		return mnemos.Recall{}
	}
	r, err := e.memory.Recall(ctx, t.scope, question, t.lang)
	tr.Timings["memory_recall"] = ms(r.Took)
	if err != nil {
		tr.MemoryError = yakor.ErrorMessage(err)
		if yakor.ErrorCode(err) == yakor.EINTERNAL {
			tr.MemoryError = err.Error()
		}
		e.log.WarnContext(ctx, "long-term memory left out of the prompt", "thread", t.scope.ThreadID, "err", err)
		return mnemos.Recall{}
	}
	return r
}

// system is the system layer: the service's prompt, the thread's own, and
// the search instruction in the conversation's language (unless noMarker:
// a JSON reply cannot hold a marker).
func (e *Engine) system(thread history.Thread, lang string, noMarker bool) string {
	s := systemPrompt(e.cfg.SystemPrompt, thread.SystemPrompt)
	if e.cfg.SearchRounds > 0 && !noMarker {
		s += "\n\n" + search.Instruction(lang)
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
