package app

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"yakor/anchors"
	"yakor/facts"
	"yakor/history"
	"yakor/jobs"
	"yakor/likbez"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/postgres/cluster"
	"yakor/turn"
	"yakor/upkeep"
)

// Config is every setting of Yakor, parsed once from flags and the
// environment (Parse; flags win) and passed down as values.
type Config struct {
	Addr        string // listen address
	DataDir     string // private PostgreSQL cluster folder, used without DatabaseURL
	DatabaseURL string // any PostgreSQL 15+ server with pgvector and pg_trgm
	// DatabaseServiceURL logs in as the service role (yakor_service), held
	// by row-level security; empty derives it from DatabaseURL.
	DatabaseServiceURL string
	PGBin              string // PostgreSQL server binaries for the private cluster
	PGUser             string // account the private cluster runs as when yakor runs as root

	WindowChars       int     // history window budget, characters
	PromptChars       int     // whole-prompt budget, characters
	MaxMessageChars   int     // longest accepted user message, characters
	MaxReplyChars     int     // longest reply kept, characters
	SystemPrompt      string  // replaces the built-in system prompt
	SearchRounds      int     // searches the model may make in one turn; 0: none
	SearchBudget      int     // characters of hits per search
	SearchTool        bool    // also offer search as a search_history tool
	AnchorMode        string  // async, sync or off
	AnchorThreshold   int     // characters the current topic must have run for a changed topic to set a new anchor at once
	AnchorMinSpan     int     // characters the current topic must have run for a changed topic that stayed to set one
	AnchorTopicCosine float64 // with an embedding model, the cosine at which two topics are the same subject
	AnchorBudget      int     // characters of the prompt's anchors block
	Workers           int     // post-turn jobs of each queue this instance runs at once
	JobWorkers        string  // per-queue overrides of Workers: "upkeep=16,embeddings=4"
	Grading           bool    // grade replies after they are sent
	GradeRate         float64 // share of replies graded (0 to 1)
	MemoryBudget      int     // characters of the <memory-context> block; 0: no long-term memory in prompts
	MemoryMinScore    float64
	MemoryMerge       float64
	SearchSemantic    bool // embed messages and fuse a semantic leg into history search
	SearchMeaning     bool // without SearchSemantic, fuse search.Meaning (word vectors, no model)
	Compaction        bool // summarize what scrolls out of a thread's window
	Facts             bool // extract durable facts after each turn
	FactBudget        int  // characters of the facts block
	FactCapChat       int
	FactCapUser       int
	FactCapProject    int

	// MemoryLexical recalls experiences by their words too, those whose
	// lexical score reaches MemoryMinLexical.
	MemoryLexical    bool
	MemoryMinLexical float64

	UIDir       string // serve the web chat from this folder (development)
	AllowNoKeys bool   // listen beyond loopback without API keys
	CORSOrigins string // web origins allowed to call the API from a browser, comma-separated
	MetricsAddr string // serve /metrics on this address instead of behind an admin key
	// MaxImportMessages bounds the earlier messages a /v1 request imports.
	MaxImportMessages int

	SearXNGURL           string        // research source; "" leaves topics pending
	ResearchSchedule     string        // cron spec of the research job; "off": only when asked
	ResearchAllowPrivate bool          // let the fetcher reach private and loopback addresses
	ResearchResults      int           // pages read per topic
	ResearchFetchTimeout time.Duration // one page fetch
	ResearchMaxBytes     int           // largest page read, bytes

	OpenAIBaseURL string
	OpenAIAPIKey  string
	Chat          ModelConfig
	Helper        ModelConfig
	Embed         ModelConfig
	ModelTimeout  time.Duration
	ModelRetries  int

	LogLevel        string
	LogFormat       string
	ShutdownTimeout time.Duration
}

// ModelConfig points one model role at a provider.
type ModelConfig struct {
	Provider string // "openai" or "offline"; "" picks openai when Model is named (Resolve)
	Model    string
}

// Providers of a model role.
const (
	ProviderOpenAI  = "openai"
	ProviderOffline = "offline"
)

// DefaultConfig is Yakor as `make run` starts it. The numbers of the memory
// layers come from their packages' DefaultConfig, so each default is
// written once; the settings table (Settings) shows these values.
func DefaultConfig() Config {
	tc, ac, mc, fa := turn.DefaultConfig(), anchors.DefaultServiceConfig(), mnemos.DefaultConfig(), facts.DefaultConfig()
	lc, fc, oc := likbez.DefaultConfig(), likbez.DefaultFetchConfig(), llm.DefaultOpenAIConfig()
	return Config{
		Addr: "127.0.0.1:8080", DataDir: "./.yakor", PGUser: cluster.DefaultUser,

		WindowChars: tc.WindowChars, PromptChars: tc.PromptChars, MaxMessageChars: tc.MaxMessageChars, MaxReplyChars: tc.MaxReplyChars, MaxImportMessages: history.DefaultMaxImport,
		SearchRounds: tc.SearchRounds, SearchBudget: tc.SearchBudget, SearchTool: tc.SearchTool,
		AnchorMode: tc.AnchorMode, AnchorThreshold: ac.Decide.CharThreshold, AnchorMinSpan: ac.Decide.MinSpan, AnchorTopicCosine: ac.TopicCosine, AnchorBudget: ac.BlockBudget,
		Workers: jobs.DefaultConfig().Workers, Grading: true, GradeRate: upkeep.DefaultConfig().GradeRate,
		MemoryBudget: mc.Recall.Budget, MemoryMinScore: mc.Recall.MinSimilarity, MemoryMerge: mc.MergeThreshold,
		MemoryLexical: !mc.Recall.NoLexical, MemoryMinLexical: mc.Recall.MinLexical,
		SearchMeaning: true, Compaction: true, Facts: true, FactBudget: fa.Budget,
		FactCapChat: fa.Caps.Chat, FactCapUser: fa.Caps.User, FactCapProject: fa.Caps.Project,

		ResearchSchedule: "0 */3 * * *", ResearchResults: lc.Results,
		ResearchFetchTimeout: fc.Timeout, ResearchMaxBytes: int(fc.MaxBytes),

		ModelTimeout: oc.Timeout, ModelRetries: oc.MaxRetries,

		LogLevel: "info", LogFormat: "text", ShutdownTimeout: 30 * time.Second,
	}
}

// Resolve fills the derived settings (a role's provider from whether a
// model is named, the helper model from the chat model) and checks the
// combination; New calls it.
func (c *Config) Resolve() error {
	if c.Helper.Model == "" {
		c.Helper.Model = c.Chat.Model
	}
	for _, r := range []struct {
		name string
		m    *ModelConfig
	}{{"chat", &c.Chat}, {"helper", &c.Helper}, {"embed", &c.Embed}} {
		switch r.m.Provider {
		case "":
			r.m.Provider = ProviderOffline
			if r.m.Model != "" {
				r.m.Provider = ProviderOpenAI
			}
		case ProviderOffline, ProviderOpenAI:
		default:
			return fmt.Errorf("%s provider %q: use openai or offline", r.name, r.m.Provider)
		}
		if r.m.Provider == ProviderOpenAI && r.m.Model == "" {
			return fmt.Errorf("%s provider is openai but no model is named: set YAKOR_%s_MODEL", r.name, strings.ToUpper(r.name))
		}
	}
	switch c.AnchorMode {
	case turn.AnchorAsync, turn.AnchorSync, turn.AnchorOff:
	default:
		return fmt.Errorf("anchor-mode %q: use async, sync or off", c.AnchorMode)
	}
	if _, err := c.researchSchedule(); err != nil {
		return err
	}
	if c.SearXNGURL != "" {
		u, err := url.Parse(c.SearXNGURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("searxng-url %q: give an http(s) URL such as http://127.0.0.1:8888", c.SearXNGURL)
		}
	}
	if c.WindowChars == 0 {
		return errors.New("window-chars must be at least 1")
	}
	if _, err := c.queueWorkers(); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("addr %q: %v", c.Addr, err)
	}
	return nil
}

// queueWorkers parses JobWorkers over the job queue's defaults.
func (c Config) queueWorkers() (map[string]int, error) {
	out := jobs.DefaultConfig().QueueWorkers
	for item := range strings.SplitSeq(c.JobWorkers, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, num, _ := strings.Cut(item, "=")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if name = strings.TrimSpace(name); !slices.Contains(jobs.Queues(), name) || err != nil || n < 1 {
			return nil, fmt.Errorf("job-workers %q: give queue=workers pairs, comma-separated, with queues among %s and at least 1 worker each", item, strings.Join(jobs.Queues(), ", "))
		}
		out[name] = n
	}
	return out, nil
}

// researchSchedule parses the research schedule; nil means off.
func (c Config) researchSchedule() (cron.Schedule, error) {
	if c.ResearchSchedule == "off" {
		return nil, nil
	}
	sched, err := cron.ParseStandard(c.ResearchSchedule)
	if err != nil {
		return nil, fmt.Errorf("research-schedule %q: %v (a cron spec such as \"0 */3 * * *\" or \"@every 1h\", or off)", c.ResearchSchedule, err)
	}
	return sched, nil
}

// Loopback reports whether the server listens on a loopback address only,
// where it may serve one local user without API keys.
func (c Config) Loopback() bool {
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewLogger builds the logger the settings ask for, writing to w.
func NewLogger(c Config, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, fmt.Errorf("log-level %q: use debug, info, warn or error", c.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log-format %q: use text or json", c.LogFormat)
}

// LogAttrs are the settings the start-up log shows, the API key masked.
func (c Config) LogAttrs() []any {
	key := ""
	if c.OpenAIAPIKey != "" {
		key = "set"
	}
	db := "private cluster in " + c.DataDir
	if c.DatabaseURL != "" {
		db = "DATABASE_URL"
	}
	return []any{"addr", c.Addr, "database", db, "window_chars", c.WindowChars,
		"chat", c.Chat.Provider + ":" + c.Chat.Model, "helper", c.Helper.Provider + ":" + c.Helper.Model,
		"embed", c.Embed.Provider + ":" + c.Embed.Model, "openai_base_url", c.OpenAIBaseURL, "openai_api_key", key}
}

// Origins are the web origins CORSOrigins lists, trimmed, without a
// trailing slash.
func (c Config) Origins() []string {
	var out []string
	for o := range strings.SplitSeq(c.CORSOrigins, ",") {
		if o = strings.TrimRight(strings.TrimSpace(o), "/"); o != "" {
			out = append(out, o)
		}
	}
	return out
}
