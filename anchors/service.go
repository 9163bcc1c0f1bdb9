package anchors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"yakor"
	"yakor/keylock"
	"yakor/llm"
	"yakor/postgres"
	"yakor/words"
)

// Completer is the helper model, when one is configured.
type Completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Result, error)
}

// ServiceConfig tunes the service.
type ServiceConfig struct {
	Decide      Config
	BlockBudget int // characters of the prompt's anchors block; default 4,000
	// TopicCosine is the cosine similarity of two topics' embeddings at or
	// above which they are the same subject, with an embedding model
	// (WithEmbedder); default 0.75.
	TopicCosine float64
}

// DefaultServiceConfig is the service's configuration unless told
// otherwise.
func DefaultServiceConfig() ServiceConfig {
	return ServiceConfig{Decide: DefaultConfig(), BlockBudget: DefaultBlockBudget, TopicCosine: DefaultTopicCosine}
}

// Service anchors a thread's messages and reads its anchors. It owns the
// tables microgoals, anchor_cursors and anchor_decisions.
type Service struct {
	db        DB
	cfg       ServiceConfig
	helper    Completer     // nil: the offline extractor
	embed     TopicEmbedder // nil: topics compared by their words alone
	log       *slog.Logger
	fallbacks prometheus.Counter
	threads   keylock.Locks // one anchoring at a time per thread
}

// NewService returns a Service. helper may be nil; reg may be nil.
func NewService(db DB, cfg ServiceConfig, helper Completer, log *slog.Logger, reg prometheus.Registerer) *Service {
	if cfg.BlockBudget <= 0 {
		cfg.BlockBudget = DefaultBlockBudget
	}
	if cfg.TopicCosine <= 0 {
		cfg.TopicCosine = DefaultTopicCosine
	}
	s := &Service{db: db, cfg: cfg, helper: helper, log: log,
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "yakor_anchor_extract_fallbacks_total",
			Help: "Topic extractions where the helper model failed or answered malformed JSON and the offline extractor was used.",
		})}
	if reg != nil {
		reg.MustRegister(s.fallbacks)
	}
	return s
}

// Applied is the decision taken for one message.
type Applied struct {
	MessageID int64
	Outcome   Outcome
	AnchorID  int64
	Source    string
}

// Process anchors scope's thread's messages up to upTo that are not
// anchored yet, in order, writing in one transaction under a lock per
// thread: two workers never interleave on a thread, and a retried job finds
// its messages done and writes nothing twice.
func (s *Service) Process(ctx context.Context, scope yakor.Scope, upTo int64) (int, error) {
	out, err := s.Apply(ctx, scope, upTo)
	return len(out), err
}

// maxAttempts is how many times Apply reads and decides a thread that
// changes under it before it gives up.
const maxAttempts = 3

// Apply is Process returning the decisions it took.
//
// The messages are read and decided with no transaction open, since the
// helper model may take seconds over them; the write then checks, under
// the thread's lock, that nothing it was decided from changed meanwhile
// (another process anchored the thread, a user edited or deleted an anchor
// it rewrites) and otherwise starts over from the read. Within this
// process one anchoring at a time runs per thread.
func (s *Service) Apply(ctx context.Context, scope yakor.Scope, upTo int64) ([]Applied, error) {
	return s.apply(ctx, scope, upTo, nil)
}

// ApplyRead is Apply with the messages already read by the caller (the
// turn's one helper call, package upkeep): a message in read is decided on
// its extraction, one missing from it is read offline, never by this
// service's helper model.
func (s *Service) ApplyRead(ctx context.Context, scope yakor.Scope, upTo int64, read map[int64]Extraction) ([]Applied, error) {
	if read == nil {
		read = map[int64]Extraction{}
	}
	return s.apply(ctx, scope, upTo, read)
}

// apply is Apply, reading the messages from read when it is not nil.
func (s *Service) apply(ctx context.Context, scope yakor.Scope, upTo int64, read map[int64]Extraction) ([]Applied, error) {
	unlock, err := s.threads.Lock(ctx, scope.TenantID+"/"+scope.ThreadID)
	if err != nil {
		return nil, fmt.Errorf("anchor thread: %w", err)
	}
	defer unlock()
	for attempt := 1; ; attempt++ {
		out, err := s.process(ctx, scope, upTo, read)
		if errors.Is(err, errChanged) && attempt < maxAttempts {
			s.log.InfoContext(ctx, "the thread changed while its messages were anchored; anchoring again", "thread", scope.ThreadID, "attempt", attempt)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("anchor thread: %w", err)
		}
		return out, nil
	}
}

// process reads scope's thread up to upTo and extracts and decides its new
// messages with no transaction open, then writes the decisions in one
// (errChanged when the thread changed meanwhile).
func (s *Service) process(ctx context.Context, scope yakor.Scope, upTo int64, read map[int64]Extraction) ([]Applied, error) {
	st, msgs, err := load(ctx, s.db, scope, upTo, mergeWindow(s.cfg.Decide))
	if err != nil || st.last >= upTo {
		return nil, err
	}
	cfg := s.cfg.Decide
	cfg.Similar = words.NewSimilarity()
	if s.embed != nil {
		m := &topicMeaning{ctx: ctx, embed: s.embed, lexical: cfg.Similar, same: cfg.withDefaults().Similarity,
			cosine: s.cfg.TopicCosine, vecs: map[string][]float32{}, log: s.log}
		for _, a := range st.anchors {
			if !a.Episode {
				m.known = append(m.known, a.Topic)
			}
		}
		cfg.Similar = m.similar
	}
	extract := func(m message, current *Anchor) Extraction { return s.extract(ctx, m, current, st.authors, read) }
	dataOf := func(id int64) (string, error) { return readAnchorData(ctx, s.db, scope, id) }
	b, err := decideRun(cfg, st, msgs, extract, dataOf)
	if err != nil {
		return nil, err
	}
	var out []Applied
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		out, err = writeBatch(ctx, tx, scope, st, b, upTo)
		return err
	})
	return out, err
}

// extract reads one message: a user's message for its topic and data, an
// assistant's only for data (it answers within the user's topic), and the
// offline model's reply for nothing. A
// message in read (when read is not nil) is taken as read there; one
// missing from it is read offline.
func (s *Service) extract(ctx context.Context, m message, current *Anchor, authors []string, read map[int64]Extraction) Extraction {
	var ok bool
	var ex Extraction
	switch ex, ok = read[m.ID]; {
	case m.Role != "user" && llm.IsOfflineReply(m.Content):
		ex = Extraction{Source: SourceOffline} // it quotes the conversation back: nothing new
	case ok:
	case read == nil && s.helper != nil:
		var err error
		if ex, err = s.extractHelper(ctx, m, current); err != nil {
			s.fallbacks.Inc()
			s.log.WarnContext(ctx, "helper topic extraction failed; using the offline extractor", "message", m.ID, "err", err)
			ex = offlineRead(m, authors)
		}
	default:
		ex = offlineRead(m, authors)
	}
	if m.Role != "user" {
		ex.Topic = ""
		if current != nil {
			ex.Topic = current.Topic
		}
	}
	return ex
}

// offlineRead reads m with no model: a user's message whole, another's
// for its data only (its topic is the current one). Notes are read from
// what people said: the user's messages and those of a named author (an
// imported conversation between people), not a model's replies.
func offlineRead(m message, authors []string) Extraction {
	ex := offlineData(m.Content)
	if m.Role == "user" {
		ex = OfflineExtract(m.Content, authors)
	}
	if m.Role == "user" || m.Author != "" {
		ex.Notes = offlineNotes(m.Content, m.At, authors)
	}
	return ex
}

const helperPrompt = `You track the topics of a conversation. Read the message and answer with one JSON object and nothing else:
{"topic": "<the message's topic: a short phrase of 1-5 words in the conversation's language>", "data": "<the key data it states: numbers with units and currencies and what they measure, totals, results, names and roles, dates (a relative day such as yesterday as the date it means), decisions; empty if none>", "data_changed": <true if it adds or changes key data, else false>}`

// extractHelper asks the helper model for a strict JSON extraction.
func (s *Service) extractHelper(ctx context.Context, m message, current *Anchor) (Extraction, error) {
	var user strings.Builder
	if current != nil {
		fmt.Fprintf(&user, "Current topic: %s\nIts data: %s\n\n", current.Topic, current.Data)
	}
	fmt.Fprintf(&user, "Message (%s, said on %s):\n%s", m.Role, timeOrNow(m.At).UTC().Format("Mon 2006-01-02"), m.Content)
	res, err := s.helper.Complete(ctx, llm.Request{Messages: []llm.Message{
		{Role: "system", Content: helperPrompt}, {Role: "user", Content: user.String()},
	}})
	if err != nil {
		return Extraction{}, err
	}
	return parseHelper(res.Text)
}

// parseHelper validates the helper's answer: one JSON object (a code fence
// around it is tolerated) with a string topic of at most 200 characters,
// string data and a boolean data_changed.
func parseHelper(text string) (Extraction, error) {
	text = strings.TrimSpace(text)
	text = strings.TrimPrefix(strings.TrimPrefix(text, "```json"), "```")
	text = strings.TrimSpace(strings.TrimSuffix(text, "```"))
	var v struct {
		Topic       *string `json:"topic"`
		Data        *string `json:"data"`
		DataChanged *bool   `json:"data_changed"`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&v); err != nil {
		return Extraction{}, fmt.Errorf("helper answer is not JSON: %w", err)
	}
	if v.Topic == nil || v.Data == nil || v.DataChanged == nil {
		return Extraction{}, errors.New("helper answer lacks topic, data or data_changed")
	}
	return Helped(*v.Topic, *v.Data, *v.DataChanged)
}

// Helped is the extraction a helper model answered for a message: its
// topic (at most 200 runes), its key data (distilled to MaxData) and
// whether the data changed (only when there is some).
func Helped(topic, data string, changed bool) (Extraction, error) {
	if n := utf8.RuneCountInString(topic); n > 200 || !utf8.ValidString(topic+data) {
		return Extraction{}, errors.New("helper topic is too long or not text")
	}
	return Extraction{Topic: strings.TrimSpace(topic), Data: Distill("", data, MaxData), DataChanged: changed && strings.TrimSpace(data) != "", Source: SourceHelper}, nil
}

// Current is scope's thread's current anchor, if it has one: the topic
// the conversation is on, with its data.
func (s *Service) Current(ctx context.Context, scope yakor.Scope) (Anchor, bool, error) {
	st, err := readCursor(ctx, s.db, scope, false)
	if err != nil || st.currentID == 0 {
		return Anchor{}, false, postgres.Wrap("current anchor", err)
	}
	as, err := recentAnchors(ctx, s.db, scope, 0, st.currentID, false)
	if err != nil {
		return Anchor{}, false, err
	}
	if a := find(as, st.currentID); a != nil {
		return *a, true, nil
	}
	return Anchor{}, false, nil
}

// Block returns the prompt's anchors block for scope's thread, in lang, and
// how many anchors it shows.
func (s *Service) Block(ctx context.Context, scope yakor.Scope, lang string) (string, int, error) {
	b := &pgx.Batch{}
	read := s.QueueBlock(b, scope)
	br := s.db.SendBatch(ctx, b)
	render, err := read(br)
	if cerr := br.Close(); err == nil {
		err = postgres.Wrap("recent anchors", cerr)
	}
	if err != nil {
		return "", 0, err
	}
	text, n := render(lang)
	return text, n, nil
}

// QueueBlock queues Block's reads in b, for a caller that sends them in
// one round trip with its own. It returns what reads their results (in
// b's order) and gives what lays the block out in a language and counts
// its anchors.
func (s *Service) QueueBlock(b *pgx.Batch, scope yakor.Scope) func(pgx.BatchResults) (func(lang string) (string, int), error) {
	read := queueRecent(b, scope, blockAnchors, true)
	return func(br pgx.BatchResults) (func(string) (string, int), error) {
		as, omitted, current, err := read(br)
		if err != nil {
			return nil, err
		}
		return func(lang string) (string, int) {
			return BlockOmitting(as, omitted, current, lang, s.cfg.BlockBudget), len(as) + omitted
		}, nil
	}
}

// blockAnchors is how many of the newest anchors the block is built from;
// a block of 4,000 characters shows fewer topics, older ones only count.
const blockAnchors = 100

// mergeWindow is how many anchors a decision may look back at.
func mergeWindow(c Config) int {
	if c.MergeWindow > 0 {
		return c.MergeWindow
	}
	return 100
}
