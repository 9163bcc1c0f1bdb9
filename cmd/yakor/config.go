package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Config is every setting of yakor, parsed once from flags and the
// environment (flags win) and passed down as values.
type Config struct {
	Addr        string // listen address
	DataDir     string // private PostgreSQL cluster folder, used without DatabaseURL
	DatabaseURL string // any PostgreSQL 15+ server with pgvector and pg_trgm
	// DatabaseServiceURL logs in as the service role (yakor_service), held
	// by row-level security; empty derives it from DatabaseURL.
	DatabaseServiceURL string
	PGBin              string // PostgreSQL server binaries for the private cluster
	PGUser             string // account the private cluster runs as when yakor runs as root

	WindowChars     int    // history window budget, characters
	MaxMessageChars int    // longest accepted user message, characters
	SystemPrompt    string // replaces the built-in system prompt
	SearchRounds    int    // searches the model may make in one turn
	SearchBudget    int    // characters of hits per search
	SearchTool      bool   // also offer search as a search_history tool
	AnchorMode      string // async, sync or off
	AnchorThreshold int    // characters since the last anchor that set a new one
	AnchorBudget    int    // characters of the prompt's anchors block
	Workers         int    // post-turn jobs this instance runs at once
	Grading         bool   // grade every reply after it is sent
	MemoryBudget    int    // characters of the <memory-context> block; 0: no long-term memory in prompts
	MemoryMinScore  float64
	MemoryMerge     float64
	SearchSemantic  bool // embed messages and fuse a semantic leg into history search
	Compaction      bool // summarize what scrolls out of a thread's window
	Facts           bool // extract durable facts after each turn
	FactBudget      int  // characters of the facts block
	FactCapChat     int
	FactCapUser     int
	FactCapProject  int

	UIDir       string // serve the web chat from this folder (development)
	AllowNoKeys bool   // listen beyond loopback without API keys

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
	Provider string // "openai" or "offline"
	Model    string
}

// setting is one knob: its flag, its environment variable, its default and
// what it does. The README's settings table is this list.
type setting struct {
	flag, env, def, usage string
	set                   func(c *Config, v string) error
}

func settings() []setting {
	str := func(dst func(*Config) *string) func(*Config, string) error {
		return func(c *Config, v string) error { *dst(c) = v; return nil }
	}
	num := func(name string, dst func(*Config) *int) func(*Config, string) error {
		return func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("%s: %q is not a non-negative whole number", name, v)
			}
			*dst(c) = n
			return nil
		}
	}
	boolean := func(name string, dst func(*Config) *bool) func(*Config, string) error {
		return func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%s: %q is not true or false", name, v)
			}
			*dst(c) = b
			return nil
		}
	}
	fraction := func(name string, dst func(*Config) *float64) func(*Config, string) error {
		return func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 || f > 1 {
				return fmt.Errorf("%s: %q is not a number above 0 and at most 1", name, v)
			}
			*dst(c) = f
			return nil
		}
	}
	dur := func(name string, dst func(*Config) *time.Duration) func(*Config, string) error {
		return func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%s: %q is not a positive duration such as 30s or 2m", name, v)
			}
			*dst(c) = d
			return nil
		}
	}
	return []setting{
		{"addr", "YAKOR_ADDR", "127.0.0.1:8080", "address to listen on", str(func(c *Config) *string { return &c.Addr })},
		{"data-dir", "YAKOR_DATA_DIR", "./.yakor", "folder of the private PostgreSQL cluster, used when no database URL is set", str(func(c *Config) *string { return &c.DataDir })},
		{"database-url", "DATABASE_URL", "", "PostgreSQL 15+ server with pgvector and pg_trgm; empty runs a private cluster in the data folder", str(func(c *Config) *string { return &c.DatabaseURL })},
		{"database-service-url", "YAKOR_DATABASE_SERVICE_URL", "", "how requests log in as the role yakor_service, which row-level security holds to one tenant; empty: as yakor_service without a password (the private cluster), else SET ROLE", str(func(c *Config) *string { return &c.DatabaseServiceURL })},
		{"pg-bin", "YAKOR_PG_BIN", "", "folder of the PostgreSQL server binaries for the private cluster; empty finds the newest installed", str(func(c *Config) *string { return &c.PGBin })},
		{"pg-user", "YAKOR_PG_USER", "postgres", "account the private cluster runs as when yakor runs as root", str(func(c *Config) *string { return &c.PGUser })},
		{"window-chars", "YAKOR_WINDOW_CHARS", "20000", "history window budget in characters", num("window-chars", func(c *Config) *int { return &c.WindowChars })},
		{"max-message-chars", "YAKOR_MAX_MESSAGE_CHARS", "100000", "longest user message accepted, in characters", num("max-message-chars", func(c *Config) *int { return &c.MaxMessageChars })},
		{"search-rounds", "YAKOR_SEARCH_ROUNDS", "2", "searches the model may make in one turn (SEARCH_HISTORY); 0 turns search off", num("search-rounds", func(c *Config) *int { return &c.SearchRounds })},
		{"search-budget", "YAKOR_SEARCH_BUDGET", "8000", "characters of history hits one search adds to the prompt", num("search-budget", func(c *Config) *int { return &c.SearchBudget })},
		{"search-tool", "YAKOR_SEARCH_TOOL", "false", "also offer history search as a search_history tool, for model servers that support tools", boolean("search-tool", func(c *Config) *bool { return &c.SearchTool })},
		{"anchor-mode", "YAKOR_ANCHOR_MODE", "async", "when messages are anchored: async (a durable job after the reply), sync (before the answer) or off", str(func(c *Config) *string { return &c.AnchorMode })},
		{"anchor-threshold", "YAKOR_ANCHOR_THRESHOLD", "3000", "characters since the last anchor after which a new one is set", num("anchor-threshold", func(c *Config) *int { return &c.AnchorThreshold })},
		{"anchor-budget", "YAKOR_ANCHOR_BUDGET", "3000", "characters of the anchors block in every prompt", num("anchor-budget", func(c *Config) *int { return &c.AnchorBudget })},
		{"workers", "YAKOR_WORKERS", "4", "post-turn jobs (anchoring, grading, embedding) of each kind this instance runs at once; 0: enqueue only, another instance works the queue", num("workers", func(c *Config) *int { return &c.Workers })},
		{"grading", "YAKOR_GRADING", "true", "grade every reply after it is sent (helper model, or the offline heuristics) and learn from the grades", boolean("grading", func(c *Config) *bool { return &c.Grading })},
		{"memory-budget", "YAKOR_MEMORY_BUDGET", "3000", "characters of long-term memory (examples, notes, warnings) recalled into each prompt; 0 leaves it out", num("memory-budget", func(c *Config) *int { return &c.MemoryBudget })},
		{"memory-min-score", "YAKOR_MEMORY_MIN_SCORE", "0.45", "lowest similarity (cosine, plus the topic boost) of an experience recalled into a prompt", fraction("memory-min-score", func(c *Config) *float64 { return &c.MemoryMinScore })},
		{"memory-merge", "YAKOR_MEMORY_MERGE", "0.9", "cosine similarity at which a new experience merges into a stored one instead of adding a near-duplicate", fraction("memory-merge", func(c *Config) *float64 { return &c.MemoryMerge })},
		{"search-semantic", "YAKOR_SEARCH_SEMANTIC", "false", "embed every message (a job after the turn) and fuse a nearest-neighbour leg into history search", boolean("search-semantic", func(c *Config) *bool { return &c.SearchSemantic })},
		{"compaction", "YAKOR_COMPACTION", "true", "summarize what is about to scroll out of a thread's window (a job after the turn); the messages stay", boolean("compaction", func(c *Config) *bool { return &c.Compaction })},
		{"facts", "YAKOR_FACTS", "true", "extract durable facts (names, versions, budgets, deadlines, decisions, preferences) after each turn", boolean("facts", func(c *Config) *bool { return &c.Facts })},
		{"fact-budget", "YAKOR_FACT_BUDGET", "2000", "characters of the facts block in every prompt", num("fact-budget", func(c *Config) *int { return &c.FactBudget })},
		{"fact-cap-chat", "YAKOR_FACT_CAP_CHAT", "100", "current facts kept per chat; over it the least recently used are closed, corrections and blockers last", num("fact-cap-chat", func(c *Config) *int { return &c.FactCapChat })},
		{"fact-cap-user", "YAKOR_FACT_CAP_USER", "500", "current facts kept per user", num("fact-cap-user", func(c *Config) *int { return &c.FactCapUser })},
		{"fact-cap-project", "YAKOR_FACT_CAP_PROJECT", "200", "current facts kept per project of a user", num("fact-cap-project", func(c *Config) *int { return &c.FactCapProject })},
		{"searxng-url", "YAKOR_SEARXNG_URL", "", "SearXNG instance the research job searches (its JSON format enabled); empty leaves research topics pending", str(func(c *Config) *string { return &c.SearXNGURL })},
		{"research-schedule", "YAKOR_RESEARCH_SCHEDULE", "0 */3 * * *", "when the research job runs: a cron spec (5 fields, or @every 1h, @daily…); off: only when asked", str(func(c *Config) *string { return &c.ResearchSchedule })},
		{"research-allow-private", "YAKOR_RESEARCH_ALLOW_PRIVATE", "false", "let the research fetcher reach private, loopback and link-local addresses (tests and intranets only)", boolean("research-allow-private", func(c *Config) *bool { return &c.ResearchAllowPrivate })},
		{"research-results", "YAKOR_RESEARCH_RESULTS", "8", "search results read per research topic", num("research-results", func(c *Config) *int { return &c.ResearchResults })},
		{"research-fetch-timeout", "YAKOR_RESEARCH_FETCH_TIMEOUT", "15s", "time one research page fetch may take", dur("research-fetch-timeout", func(c *Config) *time.Duration { return &c.ResearchFetchTimeout })},
		{"research-max-bytes", "YAKOR_RESEARCH_MAX_BYTES", "2097152", "largest research page read, in bytes; bigger pages are skipped", num("research-max-bytes", func(c *Config) *int { return &c.ResearchMaxBytes })},
		{"system-prompt", "YAKOR_SYSTEM_PROMPT", "", "system prompt replacing the built-in one", str(func(c *Config) *string { return &c.SystemPrompt })},
		{"openai-base-url", "OPENAI_BASE_URL", "", "OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 for Ollama; empty: api.openai.com", str(func(c *Config) *string { return &c.OpenAIBaseURL })},
		{"openai-api-key", "OPENAI_API_KEY", "", "API key for the model server (prefer the environment variable: flags show in ps)", str(func(c *Config) *string { return &c.OpenAIAPIKey })},
		{"chat-provider", "YAKOR_CHAT_PROVIDER", "", "provider of the chat model: openai or offline; empty: openai when a chat model is named, else offline", str(func(c *Config) *string { return &c.Chat.Provider })},
		{"chat-model", "YAKOR_CHAT_MODEL", "", "chat model name, e.g. gpt-4o-mini or llama3.1", str(func(c *Config) *string { return &c.Chat.Model })},
		{"helper-provider", "YAKOR_HELPER_PROVIDER", "", "provider of the helper model (topics, grading, facts, summaries)", str(func(c *Config) *string { return &c.Helper.Provider })},
		{"helper-model", "YAKOR_HELPER_MODEL", "", "helper model name; empty: the chat model", str(func(c *Config) *string { return &c.Helper.Model })},
		{"embed-provider", "YAKOR_EMBED_PROVIDER", "", "provider of the embedding model", str(func(c *Config) *string { return &c.Embed.Provider })},
		{"embed-model", "YAKOR_EMBED_MODEL", "", "embedding model name, e.g. text-embedding-3-small", str(func(c *Config) *string { return &c.Embed.Model })},
		{"model-timeout", "YAKOR_MODEL_TIMEOUT", "120s", "time one model call may take (a whole streamed reply)", dur("model-timeout", func(c *Config) *time.Duration { return &c.ModelTimeout })},
		{"model-retries", "YAKOR_MODEL_RETRIES", "3", "retries of a model call on 429, 5xx and connection errors", num("model-retries", func(c *Config) *int { return &c.ModelRetries })},
		{"allow-no-keys", "YAKOR_ALLOW_NO_KEYS", "false", "listen beyond loopback without API keys: anyone reaching the address acts as the one local user (for a trusted network only)", boolean("allow-no-keys", func(c *Config) *bool { return &c.AllowNoKeys })},
		{"ui-dir", "YAKOR_UI_DIR", "", "serve the web chat from this folder instead of the copy built in (for working on the UI: edits show on reload), e.g. web/ui", str(func(c *Config) *string { return &c.UIDir })},
		{"log-level", "YAKOR_LOG_LEVEL", "info", "debug, info, warn or error", str(func(c *Config) *string { return &c.LogLevel })},
		{"log-format", "YAKOR_LOG_FORMAT", "text", "text or json", str(func(c *Config) *string { return &c.LogFormat })},
		{"shutdown-timeout", "YAKOR_SHUTDOWN_TIMEOUT", "30s", "time given to requests in flight on SIGINT/SIGTERM", dur("shutdown-timeout", func(c *Config) *time.Duration { return &c.ShutdownTimeout })},
	}
}

// parseConfig reads the settings: defaults, then the environment, then
// flags. Extra flags of a subcommand may be declared on fs before the call.
func parseConfig(fs *flag.FlagSet, args []string, getenv func(string) string) (Config, error) {
	var c Config
	all := settings()
	flags := make(map[string]*string, len(all))
	for _, s := range all {
		flags[s.flag] = fs.String(s.flag, "", s.usage+" (env "+s.env+", default "+strconv.Quote(s.def)+")")
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	for _, s := range all {
		v := s.def
		if e := getenv(s.env); e != "" {
			v = e
		}
		if f := *flags[s.flag]; f != "" {
			v = f
		}
		if err := s.set(&c, v); err != nil {
			return c, err
		}
	}
	return c, c.resolve()
}

// resolve fills the derived settings and checks the combination.
func (c *Config) resolve() error {
	if c.Helper.Model == "" {
		c.Helper.Model = c.Chat.Model
	}
	for _, r := range []struct {
		name string
		m    *ModelConfig
	}{{"chat", &c.Chat}, {"helper", &c.Helper}, {"embed", &c.Embed}} {
		switch r.m.Provider {
		case "":
			r.m.Provider = "offline"
			if r.m.Model != "" {
				r.m.Provider = "openai"
			}
		case "offline", "openai":
		default:
			return fmt.Errorf("%s provider %q: use openai or offline", r.name, r.m.Provider)
		}
		if r.m.Provider == "openai" && r.m.Model == "" {
			return fmt.Errorf("%s provider is openai but no model is named: set YAKOR_%s_MODEL", r.name, strings.ToUpper(r.name))
		}
	}
	switch c.AnchorMode {
	case "async", "sync", "off":
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
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("addr %q: %v", c.Addr, err)
	}
	return nil
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

// loopback reports whether addr listens on a loopback address only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newLogger builds the logger from the settings.
func newLogger(c Config, w io.Writer) (*slog.Logger, error) {
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

// logValue shows the config in the start-up log with the key masked.
func (c Config) logValue() []any {
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
