package mnemos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgvector/pgvector-go"

	"yakor/postgres"
)

// DB is what mnemos needs of a pool.
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Begin(ctx context.Context) (pgx.Tx, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Embedder turns texts into vectors: the embed role's model.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Provider() string
	Model() string
}

// Space is the embedding model in use, as the database knows it: every
// vector is stored with its space's id and compared only with vectors of
// the same space, so changing models never mixes them. A space is
// registered, and its HNSW indexes built, on its first embedding: the
// model's dimension is learnt from its answer, and a model server that is
// down at start-up delays nothing but the memory that needs it.
type Space struct {
	db       DB
	embedder Embedder
	log      *slog.Logger

	mu   sync.Mutex
	id   int32
	dims int
}

// NewSpace returns the space of embedder's model on db.
func NewSpace(db DB, embedder Embedder, log *slog.Logger) *Space {
	return &Space{db: db, embedder: embedder, log: log}
}

// Name is the space's model as "provider:model".
func (s *Space) Name() string { return s.embedder.Provider() + ":" + s.embedder.Model() }

// Embed embeds texts and returns them with the space's id. A text without
// words gets the zero vector, which is similar to nothing.
func (s *Space) Embed(ctx context.Context, texts []string) (int32, []pgvector.Vector, error) {
	if len(texts) == 0 {
		id, _, err := s.ID(ctx)
		return id, nil, err
	}
	raw, err := s.embedder.Embed(ctx, texts)
	if err != nil {
		return 0, nil, fmt.Errorf("embed: %w", err)
	}
	if len(raw) != len(texts) || len(raw[0]) == 0 {
		return 0, nil, fmt.Errorf("embed: the model %s returned %d vectors for %d texts", s.Name(), len(raw), len(texts))
	}
	id, dims, err := s.ensure(ctx, len(raw[0]))
	if err != nil {
		return 0, nil, err
	}
	out := make([]pgvector.Vector, len(raw))
	for i, v := range raw {
		if len(v) != dims {
			return 0, nil, fmt.Errorf("embed: the model %s returned %d dimensions, not %d; run `yakor mnemos reembed` after changing models", s.Name(), len(v), dims)
		}
		out[i] = pgvector.NewVector(v)
	}
	return id, out, nil
}

// EmbedOne embeds one text.
func (s *Space) EmbedOne(ctx context.Context, text string) (int32, pgvector.Vector, error) {
	id, v, err := s.Embed(ctx, []string{text})
	if err != nil {
		return 0, pgvector.Vector{}, err
	}
	return id, v[0], nil
}

// ID returns the space's id and dimension, registering the space with one
// probe embedding when it has not been used yet.
func (s *Space) ID(ctx context.Context) (int32, int, error) {
	s.mu.Lock()
	id, dims := s.id, s.dims
	s.mu.Unlock()
	if id != 0 {
		return id, dims, nil
	}
	if _, _, err := s.EmbedOne(ctx, "dimension probe"); err != nil {
		return 0, 0, err
	}
	return s.ensure(ctx, 0)
}

// ensure registers the space with dims dimensions (0: already known) and
// builds its indexes, once.
func (s *Space) ensure(ctx context.Context, dims int) (int32, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id != 0 {
		return s.id, s.dims, nil
	}
	if dims == 0 {
		return 0, 0, errors.New("embed: the space is not known yet")
	}
	const q = `
WITH ins AS (
    INSERT INTO embed_spaces (provider, model, dims) VALUES ($1, $2, $3)
    ON CONFLICT (provider, model, dims) DO NOTHING RETURNING id
)
SELECT id FROM ins UNION ALL SELECT id FROM embed_spaces WHERE provider = $1 AND model = $2 AND dims = $3`
	var id int32
	if err := s.db.QueryRow(ctx, q, s.embedder.Provider(), s.embedder.Model(), dims).Scan(&id); err != nil {
		return 0, 0, postgres.Wrap("register embedding space", err)
	}
	if err := buildIndexes(ctx, s.db, id, dims); err != nil {
		return 0, 0, err
	}
	s.id, s.dims = id, dims
	s.log.InfoContext(ctx, "embedding space ready", "space", id, "model", s.Name(), "dims", dims)
	return id, dims, nil
}

// indexLock serialises index builds across instances.
const indexLock = 7418531

// vecIndex names a space's HNSW index of one level.
func vecIndex(space int32, level int) string {
	return fmt.Sprintf("experiences_vec_s%d_l%d", space, level)
}

// buildIndexes creates the space's partial HNSW indexes over experiences,
// one per level, so that a level's nearest neighbours are found without
// wading through the others. The statement carries the space's id and
// dimension as literals: a partial index's predicate and a vector's
// dimension cannot be parameters. Both are integers this package owns.
func buildIndexes(ctx context.Context, db DB, space int32, dims int) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return postgres.Wrap("build vector indexes", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, indexLock); err != nil {
		return postgres.Wrap("build vector indexes", err)
	}
	for level := 1; level <= 3; level++ {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON experiences
USING hnsw ((embedding::vector(%d)) vector_cosine_ops) WHERE space_id = %d AND level = %d`, vecIndex(space, level), dims, space, level)
		if _, err := tx.Exec(ctx, q); err != nil {
			return postgres.Wrap("build vector indexes", err)
		}
	}
	return postgres.Wrap("build vector indexes", tx.Commit(ctx))
}
