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
	"yakor/history"
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
	BlockBudget int // characters of the prompt's anchors block; default 3,000
}

// DefaultServiceConfig is the service's configuration unless told
// otherwise.
func DefaultServiceConfig() ServiceConfig {
	return ServiceConfig{Decide: DefaultConfig(), BlockBudget: DefaultBlockBudget}
}

// Service anchors a thread's messages and reads its anchors. It owns the
// tables microgoals, anchor_cursors and anchor_decisions.
type Service struct {
	db        DB
	cfg       ServiceConfig
	helper    Completer // nil: the offline extractor
	log       *slog.Logger
	fallbacks prometheus.Counter
}

// NewService returns a Service. helper may be nil; reg may be nil.
func NewService(db DB, cfg ServiceConfig, helper Completer, log *slog.Logger, reg prometheus.Registerer) *Service {
	if cfg.BlockBudget <= 0 {
		cfg.BlockBudget = DefaultBlockBudget
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
// anchored yet, in order, in one transaction under a lock per thread: two
// workers never interleave on a thread, and a retried job finds its
// messages done and writes nothing twice.
func (s *Service) Process(ctx context.Context, scope yakor.Scope, upTo int64) (int, error) {
	out, err := s.Apply(ctx, scope, upTo)
	return len(out), err
}

// Apply is Process returning the decisions it took.
func (s *Service) Apply(ctx context.Context, scope yakor.Scope, upTo int64) ([]Applied, error) {
	var out []Applied
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		out, err = s.process(ctx, tx, scope, upTo)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("anchor thread: %w", err)
	}
	return out, nil
}

type message struct {
	id      int64
	role    string
	content string
	chars   int64
}

func (s *Service) process(ctx context.Context, tx pgx.Tx, scope yakor.Scope, upTo int64) ([]Applied, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, scope.ThreadID); err != nil {
		return nil, postgres.Wrap("lock thread", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO anchor_cursors (tenant_id, thread_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
		scope.TenantID, scope.ThreadID); err != nil {
		return nil, postgres.Wrap("cursor", err)
	}
	var last, charsTotal int64
	var currentID *int64
	if err := tx.QueryRow(ctx, `SELECT last_message_id, current_id, chars_total FROM anchor_cursors WHERE tenant_id = $1 AND thread_id = $2`,
		scope.TenantID, scope.ThreadID).Scan(&last, &currentID, &charsTotal); err != nil {
		return nil, postgres.Wrap("cursor", err)
	}
	if last >= upTo {
		return nil, nil
	}
	hist := history.NewStore(tx)
	read, err := hist.Between(ctx, scope, last, upTo)
	if err != nil {
		return nil, err
	}
	msgs := make([]message, len(read))
	for i, m := range read {
		msgs[i] = message{id: m.ID, role: m.Role, content: m.Content, chars: int64(m.Chars)}
	}
	anchors, _, _, err := recent(ctx, tx, scope, mergeWindow(s.cfg.Decide), false)
	if err != nil {
		return nil, err
	}
	authors, err := hist.ThreadAuthors(ctx, scope)
	if err != nil {
		return nil, err
	}

	cfg := s.cfg.Decide
	cfg.Similar = words.NewSimilarity()
	var out []Applied
	for _, m := range msgs {
		charsTotal += m.chars
		current := find(anchors, currentID)
		ex := s.extract(ctx, m, current, authors)
		since := charsTotal
		if current != nil {
			since = charsTotal - current.CharPos
		}
		o := Decide(cfg, current, anchors, since, ex)
		a := Applied{MessageID: m.id, Outcome: o, Source: ex.Source}
		switch o.Decision {
		case NewAnchor:
			na := Anchor{Topic: topicOr(ex.Topic, current), Data: Distill("", ex.Data, MaxData), MessageID: m.id, CharPos: charsTotal}
			if err := tx.QueryRow(ctx, `INSERT INTO microgoals (tenant_id, user_id, thread_id, topic, data, message_id, char_pos)
VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, created_at, updated_at`,
				scope.TenantID, scope.UserID, scope.ThreadID, na.Topic, na.Data, na.MessageID, na.CharPos).Scan(&na.ID, &na.CreatedAt, &na.UpdatedAt); err != nil {
				return nil, postgres.Wrap("new anchor", err)
			}
			anchors = append(anchors, na)
			currentID, a.AnchorID = &na.ID, na.ID
		case UpdateAnchorData, MergeAnchor:
			t := find(anchors, &o.TargetID)
			if t == nil {
				return nil, fmt.Errorf("anchor %d of the decision is gone", o.TargetID)
			}
			if t.ID != deref(currentID) {
				// Only the current anchor's data was read.
				if err := tx.QueryRow(ctx, `SELECT data FROM microgoals WHERE tenant_id = $1 AND id = $2`, scope.TenantID, t.ID).Scan(&t.Data); err != nil {
					return nil, postgres.Wrap("read anchor", err)
				}
			}
			t.Data = Distill(t.Data, ex.Data, MaxData)
			var absorbed *int64
			if o.Decision == MergeAnchor && current != nil && strings.TrimSpace(current.Data) == "" && current.ID != t.ID {
				// A detour that carried no data is folded into the topic
				// the dialogue returned to.
				absorbed = &current.ID
				t.Absorbed = append(t.Absorbed, current.ID)
				anchors = remove(anchors, current.ID)
				t = find(anchors, &o.TargetID)
			}
			if _, err := tx.Exec(ctx, `UPDATE microgoals SET data = $3, updated_at = now(),
    absorbed = CASE WHEN $4::bigint IS NULL THEN absorbed ELSE array_append(absorbed, $4::bigint) END
WHERE tenant_id = $1 AND id = $2`, scope.TenantID, t.ID, t.Data, absorbed); err != nil {
				return nil, postgres.Wrap("update anchor", err)
			}
			if absorbed != nil {
				if _, err := tx.Exec(ctx, `UPDATE microgoals SET merged_into = $3 WHERE tenant_id = $1 AND id = $2`, scope.TenantID, *absorbed, t.ID); err != nil {
					return nil, postgres.Wrap("merge anchor", err)
				}
			}
			id := t.ID
			currentID, a.AnchorID = &id, id
		}
		if _, err := tx.Exec(ctx, `INSERT INTO anchor_decisions (tenant_id, thread_id, message_id, decision, rule, anchor_id, similarity, source, topic)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
			scope.TenantID, scope.ThreadID, m.id, string(o.Decision), o.Rule, nullID(a.AnchorID), o.Similarity, ex.Source, ex.Topic); err != nil {
			return nil, postgres.Wrap("record decision", err)
		}
		out = append(out, a)
	}
	if _, err := tx.Exec(ctx, `UPDATE anchor_cursors SET last_message_id = $3, current_id = $4, chars_total = $5 WHERE tenant_id = $1 AND thread_id = $2`,
		scope.TenantID, scope.ThreadID, max(upTo, last), currentID, charsTotal); err != nil {
		return nil, postgres.Wrap("advance cursor", err)
	}
	return out, nil
}

// extract reads one message: a user's message for its topic and data, an
// assistant's only for data (it answers within the user's topic).
func (s *Service) extract(ctx context.Context, m message, current *Anchor, authors []string) Extraction {
	var ex Extraction
	if s.helper != nil {
		var err error
		if ex, err = s.extractHelper(ctx, m, current); err != nil {
			s.fallbacks.Inc()
			s.log.WarnContext(ctx, "helper topic extraction failed; using the offline extractor", "message", m.id, "err", err)
			ex = OfflineExtract(m.content, authors)
		}
	} else {
		ex = OfflineExtract(m.content, authors)
	}
	if m.role != "user" {
		ex.Topic = ""
		if current != nil {
			ex.Topic = current.Topic
		}
	}
	return ex
}

const helperPrompt = `You track the topics of a conversation. Read the message and answer with one JSON object and nothing else:
{"topic": "<the message's topic: a short phrase of 1-5 words in the conversation's language>", "data": "<the key data it states: numbers with units and currencies, totals, results, decisions; empty if none>", "data_changed": <true if it adds or changes key data, else false>}`

// extractHelper asks the helper model for a strict JSON extraction.
func (s *Service) extractHelper(ctx context.Context, m message, current *Anchor) (Extraction, error) {
	var user strings.Builder
	if current != nil {
		fmt.Fprintf(&user, "Current topic: %s\nIts data: %s\n\n", current.Topic, current.Data)
	}
	fmt.Fprintf(&user, "Message (%s):\n%s", m.role, m.content)
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
	if n := utf8.RuneCountInString(*v.Topic); n > 200 || !utf8.ValidString(*v.Topic+*v.Data) {
		return Extraction{}, errors.New("helper topic is too long or not text")
	}
	return Extraction{Topic: strings.TrimSpace(*v.Topic), Data: Distill("", *v.Data, MaxData), DataChanged: *v.DataChanged && strings.TrimSpace(*v.Data) != "", Source: SourceHelper}, nil
}

// Block returns the prompt's anchors block for scope's thread, in lang, and
// how many anchors it shows.
func (s *Service) Block(ctx context.Context, scope yakor.Scope, lang string) (string, int, error) {
	as, omitted, current, err := recent(ctx, s.db, scope, blockAnchors, true)
	if err != nil {
		return "", 0, err
	}
	return BlockOmitting(as, omitted, current, lang, s.cfg.BlockBudget), len(as) + omitted, nil
}

// blockAnchors is how many of the newest anchors the block is built from;
// a block of 3,000 characters shows fewer topics, older ones only count.
const blockAnchors = 100

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// mergeWindow is how many anchors a decision may look back at.
func mergeWindow(c Config) int {
	if c.MergeWindow > 0 {
		return c.MergeWindow
	}
	return 100
}

func find(as []Anchor, id *int64) *Anchor {
	if id == nil {
		return nil
	}
	for i := range as {
		if as[i].ID == *id {
			return &as[i]
		}
	}
	return nil
}

func remove(as []Anchor, id int64) []Anchor {
	out := as[:0]
	for _, a := range as {
		if a.ID != id {
			out = append(out, a)
		}
	}
	return out
}

func topicOr(topic string, current *Anchor) string {
	if strings.TrimSpace(topic) != "" {
		return topic
	}
	if current != nil {
		return current.Topic
	}
	return "…"
}

func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}
