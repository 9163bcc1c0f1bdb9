package mnemos

import (
	"context"
	"fmt"
	"math"
	"unicode"

	"yakor"
	"yakor/postgres"
	"yakor/search"
)

// messageEmbedBatch is how many messages EmbedThread embeds in one call to
// the model and stores in one statement.
const messageEmbedBatch = 64

// messageEmbedRunes is how much of a message is embedded: a model takes a
// few thousand tokens at most, and a message's gist is in its beginning.
const messageEmbedRunes = 8000

// MessageIndex keeps message embeddings for the semantic leg of history
// search: EmbedThread stores them, Nearest (a search.Semantic) finds the
// messages nearest a query. Vectors are stored and compared within the
// space only.
type MessageIndex struct {
	db    DB
	space *Space
}

// NewMessageIndex returns the message index of space on db.
func NewMessageIndex(db DB, space *Space) *MessageIndex {
	return &MessageIndex{db: db, space: space}
}

var _ search.Semantic = (*MessageIndex)(nil)

// unembeddedSQL reads the next batch of a thread's messages without an
// embedding in the space, oldest first: $1 tenant, $2 user, $3 thread, $4
// space, $5 up to id (0: all), $6 after id, $7 rows.
const unembeddedSQL = `
SELECT m.id, m.content FROM messages m
WHERE m.tenant_id = $1 AND m.user_id = $2 AND m.thread_id = $3
  AND ($5::bigint = 0 OR m.id <= $5) AND m.id > $6 AND m.kind <> 'summary' AND m.superseded_at IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM message_embeddings e
    WHERE e.tenant_id = m.tenant_id AND e.thread_id = m.thread_id AND e.space_id = $4 AND e.message_id = m.id
  )
ORDER BY m.id
LIMIT $7`

// storeEmbeddingsSQL stores a batch of embeddings, skipping messages that
// have one already (a concurrent run) or are gone: $1 tenant, $2 user, $3
// thread, $4 space, $5 message ids, $6 vectors.
const storeEmbeddingsSQL = `
INSERT INTO message_embeddings (tenant_id, thread_id, message_id, space_id, embedding)
SELECT m.tenant_id, m.thread_id, m.id, $4, v.embedding
FROM unnest($5::bigint[], $6::vector[]) AS v(id, embedding)
JOIN messages m ON m.tenant_id = $1 AND m.id = v.id AND m.user_id = $2 AND m.thread_id = $3
ON CONFLICT DO NOTHING`

// EmbedThread embeds the messages of scope's thread with an id up to upTo
// (0: all) that have no embedding in the space yet, every kind of message,
// oldest first, in batches of 64; a message's first 8000 characters are
// embedded. It is idempotent: a message embedded meanwhile by another run
// is skipped. It returns how many embeddings it stored. The messages are
// read by tenant, user and thread: a thread that is not scope's has none.
func (x *MessageIndex) EmbedThread(ctx context.Context, scope yakor.Scope, upTo int64) (int, error) {
	space, _, err := x.space.ID(ctx)
	if err != nil {
		return 0, fmt.Errorf("embed thread: %w", err)
	}
	stored := 0
	var after int64
	for {
		rows, err := x.db.Query(ctx, unembeddedSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), space, upTo, after, messageEmbedBatch)
		if err != nil {
			return stored, postgres.Wrap("embed thread: read messages", err)
		}
		var (
			ids   []int64
			texts []string
		)
		for rows.Next() {
			var id int64
			var text string
			if err := rows.Scan(&id, &text); err != nil {
				rows.Close()
				return stored, fmt.Errorf("embed thread: read messages: %w", err)
			}
			ids = append(ids, id)
			texts = append(texts, headRunes(text, messageEmbedRunes))
		}
		if err := rows.Err(); err != nil {
			return stored, postgres.Wrap("embed thread: read messages", err)
		}
		if len(ids) == 0 {
			return stored, nil
		}
		got, vecs, err := x.space.Embed(ctx, texts)
		if err != nil {
			return stored, fmt.Errorf("embed thread: %w", err)
		}
		if got != space {
			return stored, fmt.Errorf("embed thread: the model's space changed from %d to %d", space, got)
		}
		tag, err := x.db.Exec(ctx, storeEmbeddingsSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), space, ids, vecs)
		if err != nil {
			return stored, postgres.Wrap("embed thread: store embeddings", err)
		}
		stored += int(tag.RowsAffected())
		if len(ids) < messageEmbedBatch {
			return stored, nil
		}
		after = ids[len(ids)-1]
	}
}

// nearestMessagesSQL finds the messages of a thread nearest a vector, by
// exact cosine distance over the thread's rows of the space (the primary
// key's prefix finds them): $1 tenant, $2 user, $3 thread, $4 space, $5
// vector, $6 before id (0: all), $7 rows. The vector column has no
// dimension, so no index serves the distance; the space's rows all have
// its dimension, which is what the operator needs. The thread is the
// user's (threads), and the nearest rows are checked against their
// messages once more, one primary-key probe each (LATERAL: a hash join
// would read the whole thread). A vector without words has no direction:
// its distance is NaN, which sorts last and is dropped by the caller.
const nearestMessagesSQL = `
SELECT n.message_id, 1 - n.distance
FROM (
    SELECT e.message_id, e.embedding <=> $5 AS distance
    FROM message_embeddings e
    JOIN threads t ON t.tenant_id = e.tenant_id AND t.id = e.thread_id AND t.user_id = $2
    WHERE e.tenant_id = $1 AND e.thread_id = $3 AND e.space_id = $4
      AND ($6::bigint = 0 OR e.message_id < $6)
    ORDER BY distance, e.message_id DESC
    LIMIT $7
) n
CROSS JOIN LATERAL (
    SELECT 1 FROM messages m
    WHERE m.tenant_id = $1 AND m.id = n.message_id AND m.user_id = $2 AND m.thread_id = $3 AND m.kind <> 'summary' AND m.superseded_at IS NULL
    LIMIT 1
) m
ORDER BY n.distance, n.message_id DESC`

// Nearest returns up to k messages of scope's thread (older than beforeID
// when it is not 0) whose embeddings in the space are nearest the query's,
// nearest first, with their cosine similarity. Messages not embedded yet
// are not found; a query without words, or a thread without embeddings,
// finds nothing.
func (x *MessageIndex) Nearest(ctx context.Context, scope yakor.Scope, query string, k int, beforeID int64) ([]search.Neighbour, error) {
	out := []search.Neighbour{}
	if k <= 0 || !hasWord(query) {
		return out, nil
	}
	space, vec, err := x.space.EmbedOne(ctx, headRunes(query, messageEmbedRunes))
	if err != nil {
		return nil, fmt.Errorf("nearest messages: %w", err)
	}
	if isZero(vec.Slice()) {
		return out, nil
	}
	rows, err := x.db.Query(ctx, nearestMessagesSQL, scope.TenantID, scope.UserID, scope.ThreadParam(), space, vec, beforeID, k)
	if err != nil {
		return nil, postgres.Wrap("nearest messages", err)
	}
	for rows.Next() {
		var n search.Neighbour
		if err := rows.Scan(&n.MessageID, &n.Similarity); err != nil {
			rows.Close()
			return nil, fmt.Errorf("nearest messages: %w", err)
		}
		if math.IsNaN(n.Similarity) {
			continue
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, postgres.Wrap("nearest messages", err)
	}
	return out, nil
}

// hasWord reports whether s holds a letter or a digit: what an embedding
// needs to mean anything.
func hasWord(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// isZero reports whether every component of v is zero.
func isZero(v []float32) bool {
	for _, f := range v {
		if f != 0 {
			return false
		}
	}
	return true
}

// headRunes returns s cut to its first n runes.
func headRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
