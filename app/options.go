package app

import (
	"context"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/anchors"
	"yakor/facts"
	"yakor/history"
	"yakor/jobs"
	"yakor/likbez"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/turn"
	"yakor/upkeep"
)

// Option changes how New builds the app: for tests and benchmarks, which
// run the graph production runs with a part of their own.
type Option func(*options)

type options struct {
	db      *Database
	tenant  TenantDB
	asOwner bool
	dbOpts  DatabaseOptions
	chat    turn.Model
	helpers *Helpers
	embed   mnemos.Embedder
	inline  bool
	local   *yakor.Scope
	tune    []func(*Tuning)
}

// TenantDB is what the stores need of the database for a tenant's reads
// and writes: the service role's pool (postgres.DB, held by row-level
// security), or the owner's pool to measure a path without it.
type TenantDB interface {
	turn.DB
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Completer is a helper model: anchors' topics, grading, facts, summaries
// and study notes all ask it the same way.
type Completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Result, error)
}

// Helpers are the helper model of each job; a nil one works offline.
// Without WithHelpers every job asks the configured helper model (none
// when its provider is offline).
type Helpers struct {
	// Upkeep reads a turn's new messages for their topics, facts and
	// grade in one call (package upkeep).
	Upkeep                                       Completer
	Anchors, Grader, Facts, Compaction, Research Completer
}

// separate tells whether the post-turn jobs ask each role's own helper:
// when one of anchoring, grading and facts has a helper and the turn's
// one reading has none (a test of that role's helper). Otherwise a turn's
// anchoring, facts and grading are one upkeep job.
func (h Helpers) separate() bool {
	return h.Upkeep == nil && (h.Anchors != nil || h.Grader != nil || h.Facts != nil)
}

// Tuning are the packages' configurations New derives from Config; a
// WithTuning option may change what the settings do not reach before
// anything is built.
type Tuning struct {
	Turn     turn.Config
	Anchors  anchors.ServiceConfig
	Memory   mnemos.Config
	Facts    facts.Config
	Compact  history.CompactConfig
	Upkeep   upkeep.Config
	Research likbez.Config
	Fetch    likbez.FetchConfig
	Jobs     jobs.Config
}

// WithDatabase builds the app on db instead of opening one; Close leaves
// it open.
func WithDatabase(db *Database) Option { return func(o *options) { o.db = db } }

// WithTenantDB runs the tenants' reads and writes on tenant instead of the
// database's service role (the owner's pool, say, to measure what
// row-level security costs).
func WithTenantDB(tenant TenantDB) Option { return func(o *options) { o.tenant = tenant } }

// WithOwnerAsTenant runs the tenants' reads and writes on the database's
// owner pool: for maintenance across every tenant (re-embedding).
func WithOwnerAsTenant() Option { return func(o *options) { o.asOwner = true } }

// WithDatabaseOptions opens the database with o (the private cluster's
// server settings).
func WithDatabaseOptions(do DatabaseOptions) Option { return func(o *options) { o.dbOpts = do } }

// WithChatModel answers turns with m instead of the configured chat model.
func WithChatModel(m turn.Model) Option { return func(o *options) { o.chat = m } }

// WithHelpers gives each job its own helper model.
func WithHelpers(h Helpers) Option { return func(o *options) { o.helpers = &h } }

// WithEmbedder embeds with e instead of the configured embedding model.
func WithEmbedder(e mnemos.Embedder) Option { return func(o *options) { o.embed = e } }

// WithInlineJobs keeps the post-turn jobs in memory until App.Inline.RunPending
// (jobs.Inline) instead of River's durable queue.
func WithInlineJobs() Option { return func(o *options) { o.inline = true } }

// WithLocalScope serves every request without a key as scope (a second
// tenant on a shared database, in tests) instead of the local user.
func WithLocalScope(scope yakor.Scope) Option { return func(o *options) { o.local = &scope } }

// WithTuning changes the packages' configurations before they are built.
func WithTuning(fn func(*Tuning)) Option { return func(o *options) { o.tune = append(o.tune, fn) } }

// tuning is the packages' configurations the settings make.
func (c Config) tuning() Tuning {
	t := Tuning{
		Turn: turn.Config{
			WindowChars: c.WindowChars, PromptChars: c.PromptChars, MaxMessageChars: c.MaxMessageChars, MaxReplyChars: c.MaxReplyChars, SystemPrompt: c.SystemPrompt,
			SearchRounds: c.SearchRounds, SearchBudget: c.SearchBudget, SearchTool: c.SearchTool,
			AnchorMode: c.AnchorMode, FactBudget: c.FactBudget, AnchorBudget: c.AnchorBudget,
		},
		Anchors:  anchors.DefaultServiceConfig(),
		Memory:   mnemos.DefaultConfig(),
		Compact:  history.CompactConfig{WindowChars: c.WindowChars},
		Upkeep:   upkeep.Config{GradeRate: c.GradeRate, Model: c.Helper.Model},
		Research: likbez.Config{Results: c.ResearchResults},
		Fetch: likbez.FetchConfig{
			Timeout: c.ResearchFetchTimeout, MaxBytes: int64(c.ResearchMaxBytes), AllowPrivate: c.ResearchAllowPrivate,
		},
		Jobs: jobs.Config{Workers: c.Workers},
	}
	t.Jobs.QueueWorkers, _ = c.queueWorkers() // Resolve checked it
	t.Anchors.Decide.CharThreshold, t.Anchors.Decide.MinSpan, t.Anchors.BlockBudget = c.AnchorThreshold, c.AnchorMinSpan, c.AnchorBudget
	t.Anchors.TopicCosine = c.AnchorTopicCosine
	t.Memory.MergeThreshold = c.MemoryMerge
	t.Memory.Recall.Budget, t.Memory.Recall.MinSimilarity, t.Memory.Recall.Off = c.MemoryBudget, c.MemoryMinScore, c.MemoryBudget == 0
	t.Memory.Recall.NoLexical, t.Memory.Recall.MinLexical = !c.MemoryLexical, c.MemoryMinLexical
	t.Facts = facts.Config{Caps: facts.Caps{Chat: c.FactCapChat, User: c.FactCapUser, Project: c.FactCapProject}, Budget: c.FactBudget}
	return t
}
