// Package app is Yakor's one composition root. New builds the whole object
// graph — database, models, the memory layers, the turn engine, the job
// queue and the HTTP server — from a Config; Start serves it, Close shuts
// it down in order. `yakor serve`, the other commands, the benchmarks
// (bench) and the end-to-end tests (app/apptest) all build Yakor here, so
// what they run and measure is what production runs. The settings table
// (Settings) and the defaults (DefaultConfig, read from each package's
// own DefaultConfig) live here too.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"yakor"
	"yakor/account"
	"yakor/anchors"
	"yakor/facts"
	"yakor/history"
	"yakor/jobs"
	"yakor/lifecycle"
	"yakor/likbez"
	"yakor/mnemos"
	"yakor/search"
	"yakor/sufler"
	"yakor/turn"
	"yakor/upkeep"
	"yakor/web"
)

// App is Yakor built from a Config. Its parts are exported for the
// benchmarks and tests that drive them directly; they are set by New and
// not to be replaced.
type App struct {
	Config   Config
	Log      *slog.Logger
	DB       *Database
	Registry *prometheus.Registry

	Accounts  *account.Store
	History   *history.Store
	Anchors   *anchors.Service
	Memory    *mnemos.Store
	Facts     *facts.Store
	Lifecycle *lifecycle.Service
	Engine    *turn.Engine
	Grader    *sufler.Service
	Searcher  *search.Searcher
	Compactor *history.Compactor // nil with compaction off
	// Upkeep reads a turn's new messages for its anchors, facts and grade
	// in one helper call; nil when a test gives those roles helpers of
	// their own (WithHelpers).
	Upkeep   *upkeep.Service
	Research *likbez.Service
	// Queue is River's durable job queue; nil with WithInlineJobs, whose
	// queue is Inline.
	Queue  *jobs.Client
	Inline *jobs.Inline
	Server *web.Server
	// Local is the scope of requests without a key (the local user).
	Local yakor.Scope
	// Messages embeds messages for history search's semantic leg; nil
	// without SearchSemantic.
	Messages *mnemos.MessageIndex

	ownDB       bool
	ln          net.Listener
	http        *http.Server
	metrics     *http.Server // on Config.MetricsAddr, when set
	metricsAddr string
	served      chan error
	started     bool
	jobsDone    bool
}

// New builds Yakor from cfg (Resolve is applied). It opens the database
// (unless WithDatabase gives one) and migrates it; it listens on nothing
// and runs no job until Start. Close releases what New made.
func New(ctx context.Context, cfg Config, log *slog.Logger, opts ...Option) (*App, error) {
	if err := cfg.Resolve(); err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	a := &App{Config: cfg, Log: log, Registry: prometheus.NewRegistry(), DB: o.db}
	if a.DB == nil {
		db, err := OpenDatabase(ctx, cfg, log, o.dbOpts)
		if err != nil {
			return nil, err
		}
		a.DB, a.ownDB = db, true
	}
	if err := a.build(ctx, o); err != nil {
		a.Close(ctx)
		return nil, err
	}
	return a, nil
}

// build makes the graph on a.DB.
func (a *App) build(ctx context.Context, o options) error {
	cfg, log, reg := a.Config, a.Log, a.Registry
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	t := cfg.tuning()
	for _, fn := range o.tune {
		fn(&t)
	}
	m := a.models(o)
	var tenant TenantDB = a.DB.Tenant
	switch {
	case o.tenant != nil:
		tenant = o.tenant
	case o.asOwner:
		tenant = a.DB.Owner
	}
	a.Accounts = account.NewStore(a.DB.Owner)
	if o.local != nil {
		a.Local = *o.local
	} else {
		local, err := a.Accounts.EnsureLocal(ctx)
		if err != nil {
			return err
		}
		a.Local = local
	}
	a.Anchors = anchors.NewService(tenant, t.Anchors, m.helpers.Anchors, log, reg)
	if m.embedModel {
		a.Anchors.WithEmbedder(m.embed)
	}
	a.History = history.NewStore(tenant)
	space := mnemos.NewSpace(a.DB.Owner, m.embed, log)
	a.Memory = mnemos.NewStore(tenant, space, t.Memory, log, reg)
	a.Facts = facts.NewStore(tenant, t.Facts, log)
	a.Lifecycle = lifecycle.New(tenant)
	if m.helpers.Facts != nil {
		a.Facts = a.Facts.WithHelper(m.helpers.Facts)
	}
	a.Engine = turn.NewEngine(tenant, m.chat, t.Turn, log, turn.NewMetrics(reg)).
		WithAnchors(a.Anchors).WithMemory(a.Memory, cfg.MemoryBudget).WithFacts(a.Facts)
	a.Grader = sufler.NewService(sufler.NewGrader(m.helpers.Grader, cfg.Helper.Model), a.Memory, a.History, a.Engine, log, reg)
	a.Searcher = search.NewSearcher(tenant)
	workers := a.workers(tenant, space, t, m)
	var source likbez.Source
	if cfg.SearXNGURL != "" {
		source = likbez.NewSearXNG(cfg.SearXNGURL, nil)
	}
	a.Research = likbez.New(a.DB.Owner, mnemos.NewTopicQueue(a.DB.Owner, tenant), source, likbez.NewFetcher(t.Fetch), m.helpers.Research, a.Memory, t.Research, log, reg).WithTenantDB(tenant)
	workers.Research = a.Research
	queue, err := a.queue(workers, t.Jobs, o.inline)
	if err != nil {
		return err
	}
	a.Engine = a.Engine.WithJobs(queue)
	a.Server = web.NewServer(a.deps(queue, m))
	return nil
}

// workers are the post-turn jobs' services, as the settings switch them.
func (a *App) workers(tenant TenantDB, space *mnemos.Space, t Tuning, m models) jobs.Workers {
	cfg := a.Config
	w := jobs.Workers{Anchors: a.Anchors}
	if cfg.Grading {
		w.Grader = a.Grader
	}
	if cfg.Facts {
		w.Facts = a.Facts
	}
	if !m.helpers.separate() {
		parts := upkeep.Parts{Messages: a.History, Turns: a.Engine}
		if cfg.AnchorMode != turn.AnchorOff {
			parts.Anchors = a.Anchors
		}
		// The offline model's replies are canned: grading them would
		// teach long-term memory its boilerplate.
		if cfg.Grading && m.chat.Provider() != ProviderOffline {
			parts.Grades = a.Grader
		}
		if cfg.Facts {
			parts.Facts = a.Facts
		}
		a.Upkeep = upkeep.New(tenant, m.helpers.Upkeep, parts, t.Upkeep, a.Log, a.Registry)
		w.Upkeep = a.Upkeep
	}
	if cfg.Compaction {
		var flush history.Flusher
		if cfg.Facts {
			flush = a.Facts
		}
		a.Compactor = history.NewCompactor(a.History, flush, m.helpers.Compaction, t.Compact, a.Log)
		w.Compact = a.Compactor
	}
	switch {
	case cfg.SearchSemantic:
		index := mnemos.NewMessageIndex(tenant, space)
		a.Messages, w.Messages = index, index
		a.Searcher = a.Searcher.WithSemantic(index)
		a.Engine = a.Engine.WithSearcher(a.Searcher)
	case cfg.SearchMeaning:
		a.Searcher = a.Searcher.WithSemantic(search.NewMeaning(tenant))
		a.Engine = a.Engine.WithSearcher(a.Searcher)
	}
	return w
}

// jobQueue is what both kinds of queue do for the engine and the server.
type jobQueue interface {
	turn.Jobs
	web.ResearchQueue
}

// queue builds the job queue: River's, or Inline.
func (a *App) queue(w jobs.Workers, jc jobs.Config, inline bool) (jobQueue, error) {
	schedule, _ := a.Config.researchSchedule()
	if schedule != nil {
		jc.ResearchSchedule = schedule
	}
	jc.Logger = a.Log
	if inline {
		a.Inline = jobs.NewInline(w)
		return a.Inline, nil
	}
	q, err := jobs.New(a.DB.Owner, jc, w)
	if err != nil {
		return nil, err
	}
	a.Queue = q
	return q, nil
}

// deps are the HTTP server's parts.
func (a *App) deps(queue jobQueue, m models) web.Deps {
	cfg := a.Config
	return web.Deps{
		Log: a.Log, Turns: a.Engine, Threads: a.History, Projects: a.Accounts, Searcher: a.Searcher, Anchors: a.Anchors,
		Memory: a.Memory, Feedback: a.Grader, Research: a.Research, ResearchQueue: queue, Facts: a.Facts,
		Resetter: mnemos.NewResetter(a.Memory, a.Facts, a.Anchors, a.History), DB: a.DB.Tenant,
		Gatherer: a.Registry, Registerer: a.Registry, LocalScope: a.Local, Diagnose: (&diagnosis{dir: a.DB.private.Dir}).get,
		MaxBodyBytes: int64(cfg.MaxMessageChars)*6 + 64<<10,
		Info: web.Info{
			Chat:    web.ModelInfo{Provider: cfg.Chat.Provider, Model: m.chat.Model()},
			Helper:  web.ModelInfo{Provider: cfg.Helper.Provider, Model: cfg.Helper.Model},
			Embed:   web.ModelInfo{Provider: cfg.Embed.Provider, Model: cfg.Embed.Model},
			Offline: m.chat.Provider() == ProviderOffline,
			Version: Version().Version, Revision: Version().Revision,
		},
		UIDir:       cfg.UIDir,
		CORSOrigins: cfg.Origins(), MaxImportMessages: cfg.MaxImportMessages, MetricsElsewhere: cfg.MetricsAddr != "",
		Keys: a.Accounts, Users: a.Accounts, Lifecycle: a.Lifecycle, NoLocal: !cfg.Loopback() && !cfg.AllowNoKeys,
	}
}

// Start serves: it checks that a server listening beyond loopback has API
// keys (or --allow-no-keys), records as failed the turns a stopped server
// left running in its private cluster, starts the job queue and the HTTP
// listener on Config.Addr (port 0 picks a free one: Addr says which).
func (a *App) Start(ctx context.Context) error {
	if err := a.checkKeys(ctx); err != nil {
		return err
	}
	if a.DB.Private() {
		// The private cluster serves this server alone: a turn it finds
		// running was left by a server that stopped in the middle of it.
		n, err := turn.AbandonRunning(ctx, a.DB.Owner)
		if err != nil {
			return err
		}
		if n > 0 {
			a.Log.Warn("turns left running by a server that stopped were recorded as failed", "turns", n)
		}
		a.DB.watch(a.Log)
	}
	if a.Queue != nil {
		if err := a.Queue.Start(ctx); err != nil {
			return err
		}
		a.jobsDone = false
	}
	a.started = true
	ln, err := net.Listen("tcp", a.Config.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.Config.Addr, err)
	}
	a.ln = ln
	a.http = &http.Server{Handler: a.Server, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn)}
	a.served = make(chan error, 1)
	go func() { a.served <- a.http.Serve(ln) }()
	if err := a.serveMetrics(); err != nil {
		return err
	}
	a.Log.Info("yakor is serving", "url", "http://"+a.Addr(), "api", "http://"+a.Addr()+"/api/v1")
	return nil
}

// checkKeys refuses to serve beyond loopback without API keys unless
// AllowNoKeys says so.
func (a *App) checkKeys(ctx context.Context) error {
	cfg := a.Config
	if cfg.Loopback() {
		return nil
	}
	hasKeys, err := a.Accounts.HasKeys(ctx)
	switch {
	case err != nil:
		return err
	case hasKeys:
	case cfg.AllowNoKeys:
		a.Log.Warn("LISTENING BEYOND LOOPBACK WITHOUT API KEYS: everyone who reaches this address acts as the one local user and reads and writes all of its memory (--allow-no-keys)", "addr", cfg.Addr)
	default:
		return fmt.Errorf("refusing to listen on %s without API keys: make one with `yakor keys create --tenant NAME`, or listen on loopback (e.g. 127.0.0.1:8080); --allow-no-keys overrides this, letting anyone act as the local user", cfg.Addr)
	}
	return nil
}

// Addr is the address the server listens on ("" before Start).
func (a *App) Addr() string {
	if a.ln == nil {
		return ""
	}
	return a.ln.Addr().String()
}

// Served delivers the HTTP server's error should it stop serving on its
// own (nil channel before Start).
func (a *App) Served() <-chan error { return a.served }

// Close shuts Yakor down in order, each step within ctx (give it
// Config.ShutdownTimeout): the HTTP server (requests in flight finish),
// the job queue (running jobs finish or are cut off and run again at the
// next start), then the database.
func (a *App) Close(ctx context.Context) {
	if a.http != nil {
		if err := a.http.Shutdown(ctx); err != nil {
			a.Log.Warn("requests still running at shutdown were cut off", "err", err)
		}
		a.http = nil
	}
	if a.metrics != nil {
		_ = a.metrics.Shutdown(ctx)
		a.metrics = nil
	}
	if a.Queue != nil && a.started && !a.jobsDone {
		if err := a.Queue.Stop(ctx); err != nil {
			a.Log.Warn("jobs still running at shutdown were cut off; they run again at the next start", "err", err)
		}
		a.jobsDone = true
	}
	if a.ownDB && a.DB != nil {
		a.DB.Close()
		a.DB = nil
	}
}
