package facts

import (
	"cmp"
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is what the store needs of a pool or a transaction.
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Begin(ctx context.Context) (pgx.Tx, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Caps bound the current facts of each scope; over a cap, the least
// recently used go first, corrections and blockers last.
type Caps struct {
	Chat    int // per thread; default 100
	User    int // per user; default 500
	Project int // per user and project; default 200
}

// Config tunes the store. A field <= 0 takes its value in DefaultConfig.
type Config struct {
	// Caps caps each scope's current facts.
	Caps Caps
	// Budget is the characters of the facts block in every prompt.
	Budget int
}

// DefaultConfig is the store's default configuration: caps of 100 facts
// per chat, 500 per user and 200 per project, and a block of 2,000
// characters.
func DefaultConfig() Config {
	return Config{Caps: Caps{Chat: 100, User: 500, Project: 200}, Budget: 2000}
}

// withDefaults fills each field <= 0 from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.Caps.Chat = cmp.Or(max(c.Caps.Chat, 0), d.Caps.Chat)
	c.Caps.User = cmp.Or(max(c.Caps.User, 0), d.Caps.User)
	c.Caps.Project = cmp.Or(max(c.Caps.Project, 0), d.Caps.Project)
	c.Budget = cmp.Or(max(c.Budget, 0), d.Budget)
	return c
}

// Store keeps each user's facts, scoped by tenant and user.
type Store struct {
	db     DB
	cfg    Config
	log    *slog.Logger
	helper Completer // extraction; nil: offline
}

// NewStore returns a Store on db that extracts facts offline until
// WithHelper gives it a helper model.
func NewStore(db DB, cfg Config, log *slog.Logger) *Store {
	return &Store{db: db, cfg: cfg.withDefaults(), log: log}
}
