package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"yakor/account"
	"yakor/anchors"
	"yakor/facts"
	"yakor/history"
	"yakor/jobs"
	"yakor/likbez"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/search"
	"yakor/sufler"
	"yakor/turn"
	"yakor/web"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, err := parseConfig(newFlagSet("serve", stderr), args, getenv)
	if err != nil {
		return err
	}
	log, err := newLogger(cfg, stderr)
	if err != nil {
		return err
	}
	log.Info("starting yakor", cfg.logValue()...)

	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.close(log)
	if db.current() != nil {
		// The private cluster serves this server alone: a turn it finds
		// running was left by a server that stopped in the middle of it.
		n, err := turn.AbandonRunning(ctx, db.pool)
		if err != nil {
			return err
		}
		if n > 0 {
			log.Warn("turns left running by a server that stopped were recorded as failed", "turns", n)
		}
		db.watch(log)
	}

	accounts := account.NewStore(db.pool)
	local, err := accounts.EnsureLocal(ctx)
	if err != nil {
		return err
	}
	if !loopback(cfg.Addr) {
		hasKeys, err := accounts.HasKeys(ctx)
		if err != nil {
			return err
		}
		switch {
		case hasKeys:
		case cfg.AllowNoKeys:
			log.Warn("LISTENING BEYOND LOOPBACK WITHOUT API KEYS: everyone who reaches this address acts as the one local user and reads and writes all of its memory (--allow-no-keys)", "addr", cfg.Addr)
		default:
			return fmt.Errorf("refusing to listen on %s without API keys: make one with `yakor keys create --tenant NAME`, or listen on loopback (e.g. 127.0.0.1:8080); --allow-no-keys overrides this, letting anyone act as the local user", cfg.Addr)
		}
	}
	chat := chatModel(cfg, log)
	if chat.Provider() == "offline" {
		log.Warn("no language model is configured: replies come from the offline model; set OPENAI_BASE_URL and YAKOR_CHAT_MODEL to use a real one")
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	anchorSvc := anchors.NewService(db.svc, anchors.ServiceConfig{
		Decide: anchors.Config{CharThreshold: cfg.AnchorThreshold}, BlockBudget: cfg.AnchorBudget,
	}, helperModel(cfg, log), log, reg)
	hist := history.NewStore(db.svc)
	space := mnemos.NewSpace(db.pool, embedModel(cfg, log), log)
	memory := mnemos.NewStore(db.svc, space, mnemos.Config{
		MergeThreshold: cfg.MemoryMerge,
		Recall:         mnemos.RecallConfig{Budget: cfg.MemoryBudget, MinSimilarity: cfg.MemoryMinScore, Off: cfg.MemoryBudget == 0},
	}, log, reg)
	factStore := facts.NewStore(db.svc, facts.Config{
		Caps:   facts.Caps{Chat: cfg.FactCapChat, User: cfg.FactCapUser, Project: cfg.FactCapProject},
		Budget: cfg.FactBudget,
	}, log)
	if h := helperOpenAI(cfg, log); h != nil {
		factStore = factStore.WithHelper(h)
	}
	engine := turn.NewEngine(db.svc, chat, turn.Config{
		WindowChars: cfg.WindowChars, MaxMessageChars: cfg.MaxMessageChars, SystemPrompt: cfg.SystemPrompt,
		SearchRounds: searchRounds(cfg.SearchRounds), SearchBudget: cfg.SearchBudget, SearchTool: cfg.SearchTool,
		AnchorMode: cfg.AnchorMode, FactBudget: cfg.FactBudget, AnchorBudget: cfg.AnchorBudget,
	}, log, turn.NewMetrics(reg)).WithAnchors(anchorSvc).WithMemory(memory, cfg.MemoryBudget).WithFacts(factStore)
	grader := sufler.NewService(sufler.NewGrader(helperCompleter(cfg, log), cfg.Helper.Model), memory, hist, engine, log, reg)
	searcher := search.NewSearcher(db.svc)
	workers := jobs.Workers{Anchors: anchorSvc}
	if cfg.Grading {
		workers.Grader = grader
	}
	if cfg.Facts {
		workers.Facts = factStore
	}
	if cfg.Compaction {
		var flush history.Flusher
		if cfg.Facts {
			flush = factStore
		}
		var helper history.Completer
		if h := helperOpenAI(cfg, log); h != nil {
			helper = h
		}
		workers.Compact = history.NewCompactor(hist, flush, helper, history.CompactConfig{WindowChars: cfg.WindowChars}, log)
	}
	if cfg.SearchSemantic {
		index := mnemos.NewMessageIndex(db.svc, space)
		workers.Messages = index
		searcher = searcher.WithSemantic(index)
		engine = engine.WithSearcher(searcher)
	}
	research := newResearch(db.pool, mnemos.NewTopicQueue(db.pool, db.svc), cfg, memory, log, reg).WithTenantDB(db.svc)
	workers.Research = research
	schedule, _ := cfg.researchSchedule()
	jc := jobs.Config{Workers: cfg.Workers, Logger: log}
	if schedule != nil {
		jc.ResearchSchedule = schedule
	}
	queue, err := jobs.New(db.pool, jc, workers)
	if err != nil {
		return err
	}
	if err := queue.Start(ctx); err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		if err := queue.Stop(sctx); err != nil {
			log.Warn("jobs still running at shutdown were cut off; they run again at the next start", "err", err)
		}
	}()
	engine = engine.WithJobs(queue)
	srv := web.NewServer(web.Deps{
		Log: log, Turns: engine, Threads: hist, Projects: account.NewStore(db.pool), Searcher: searcher, Anchors: anchorSvc,
		Memory: memory, Feedback: grader, Research: research, ResearchQueue: queue, Facts: factStore,
		Resetter: mnemos.NewResetter(memory, factStore, anchorSvc, hist), DB: db.svc,
		Gatherer: reg, Registerer: reg, LocalScope: local, Diagnose: (&diagnosis{dir: db.private.Dir}).get,
		MaxBodyBytes: int64(cfg.MaxMessageChars)*6 + 64<<10,
		Info: web.Info{
			Chat:    web.ModelInfo{Provider: cfg.Chat.Provider, Model: chat.Model()},
			Helper:  web.ModelInfo{Provider: cfg.Helper.Provider, Model: cfg.Helper.Model},
			Embed:   web.ModelInfo{Provider: cfg.Embed.Provider, Model: cfg.Embed.Model},
			Offline: chat.Provider() == "offline",
		},
		UIDir: cfg.UIDir,
		Keys:  accounts, NoLocal: !loopback(cfg.Addr) && !cfg.AllowNoKeys,
	})

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	httpSrv := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(ln) }()
	log.Info("yakor is serving", "url", "http://"+ln.Addr().String(), "api", "http://"+ln.Addr().String()+"/api/v1")
	fmt.Fprintf(stdout, "yakor listening on http://%s\n", ln.Addr())

	select {
	case <-ctx.Done():
		log.Info("shutting down", "grace", cfg.ShutdownTimeout)
	case err := <-served:
		return fmt.Errorf("http server: %w", err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := httpSrv.Shutdown(sctx); err != nil {
		log.Warn("requests still running at shutdown were cut off", "err", err)
	}
	return nil
}

// searchRounds maps the setting (0: off) to turn.Config's (negative: off).
func searchRounds(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// helperModel builds the helper role's model for the anchors; nil means
// the offline extractor, which needs no model.
func helperModel(cfg Config, log *slog.Logger) anchors.Completer {
	if h := helperOpenAI(cfg, log); h != nil {
		return h
	}
	return nil
}

// helperCompleter is helperModel for the grader; nil grades offline.
func helperCompleter(cfg Config, log *slog.Logger) sufler.Completer {
	if h := helperOpenAI(cfg, log); h != nil {
		return h
	}
	return nil
}

// helperOpenAI is the helper role's model server, nil when it is offline.
func helperOpenAI(cfg Config, log *slog.Logger) *llm.OpenAI {
	if cfg.Helper.Provider != "openai" {
		return nil
	}
	return openAIModel(cfg, cfg.Helper.Model, log)
}

// openAIModel is model on the configured OpenAI-compatible server.
func openAIModel(cfg Config, model string, log *slog.Logger) *llm.OpenAI {
	return llm.NewOpenAI(llm.OpenAIConfig{
		BaseURL: cfg.OpenAIBaseURL, APIKey: cfg.OpenAIAPIKey, Model: model,
		Timeout: cfg.ModelTimeout, MaxRetries: cfg.ModelRetries, Logger: log,
	})
}

// newResearch builds the research job: the topics' queue, SearXNG (when
// configured), the guarded page fetcher, the helper model for notes,
// long-term memory as the index.
func newResearch(pool *pgxpool.Pool, topics likbez.Topics, cfg Config, index likbez.Indexer, log *slog.Logger, reg prometheus.Registerer) *likbez.Service {
	var source likbez.Source
	if cfg.SearXNGURL != "" {
		source = likbez.NewSearXNG(cfg.SearXNGURL, nil)
	}
	fetch := likbez.NewFetcher(likbez.FetchConfig{
		Timeout: cfg.ResearchFetchTimeout, MaxBytes: int64(cfg.ResearchMaxBytes), AllowPrivate: cfg.ResearchAllowPrivate,
	})
	var helper likbez.Completer
	if h := helperOpenAI(cfg, log); h != nil {
		helper = h
	}
	return likbez.New(pool, topics, source, fetch, helper, index, likbez.Config{Results: cfg.ResearchResults}, log, reg)
}

// embedModel builds the embed role's model.
func embedModel(cfg Config, log *slog.Logger) mnemos.Embedder {
	if cfg.Embed.Provider == "openai" {
		return openAIModel(cfg, cfg.Embed.Model, log)
	}
	return llm.NewOffline()
}

// chatModel builds the chat role's model.
func chatModel(cfg Config, log *slog.Logger) turn.Model {
	if cfg.Chat.Provider == "openai" {
		return openAIModel(cfg, cfg.Chat.Model, log)
	}
	return llm.NewOffline()
}
