package app

import (
	"flag"
	"time"
)

// Groups of settings, in the order docs/configuration.md shows them.
const (
	GroupServer   = "Server and database"
	GroupMemory   = "Memory layers"
	GroupResearch = "Research (likbez)"
	GroupModels   = "Models"
	GroupLogging  = "Logging and shutdown"
)

// str, num, yes, frac and dur make a setting's value of each kind from the
// Config field f points to.
func str(f func(*Config) *string) func(*Config) flag.Value {
	return func(c *Config) flag.Value { return text{f(c)} }
}

func num(f func(*Config) *int) func(*Config) flag.Value {
	return func(c *Config) flag.Value { return count{f(c)} }
}

func yes(f func(*Config) *bool) func(*Config) flag.Value {
	return func(c *Config) flag.Value { return boolean{f(c)} }
}

func frac(f func(*Config) *float64) func(*Config) flag.Value {
	return func(c *Config) flag.Value { return fraction{f(c)} }
}

func dur(f func(*Config) *time.Duration) func(*Config) flag.Value {
	return func(c *Config) flag.Value { return duration{f(c)} }
}

// Settings is the table of every setting: flag, environment variable,
// group and help. docs/configuration.md is generated from it.
func Settings() []Setting {
	s, m, r, md, l := GroupServer, GroupMemory, GroupResearch, GroupModels, GroupLogging
	return []Setting{
		{"addr", "YAKOR_ADDR", "address to listen on", s, str(func(c *Config) *string { return &c.Addr })},
		{"data-dir", "YAKOR_DATA_DIR", "folder of the private PostgreSQL cluster, used when no database URL is set", s, str(func(c *Config) *string { return &c.DataDir })},
		{"database-url", "DATABASE_URL", "PostgreSQL 15+ server with pgvector and pg_trgm; empty runs a private cluster in the data folder", s, str(func(c *Config) *string { return &c.DatabaseURL })},
		{"database-service-url", "YAKOR_DATABASE_SERVICE_URL", "how requests log in as the role yakor_service, which row-level security holds to one tenant; empty: as yakor_service without a password (the private cluster), else SET ROLE", s, str(func(c *Config) *string { return &c.DatabaseServiceURL })},
		{"pg-bin", "YAKOR_PG_BIN", "folder of the PostgreSQL server binaries for the private cluster; empty finds the newest installed", s, str(func(c *Config) *string { return &c.PGBin })},
		{"pg-user", "YAKOR_PG_USER", "account the private cluster runs as when yakor runs as root", s, str(func(c *Config) *string { return &c.PGUser })},
		{"allow-no-keys", "YAKOR_ALLOW_NO_KEYS", "listen beyond loopback without API keys: anyone reaching the address acts as the one local user (for a trusted network only)", s, yes(func(c *Config) *bool { return &c.AllowNoKeys })},
		{"metrics-addr", "YAKOR_METRICS_ADDR", "serve Prometheus metrics on this address (e.g. 127.0.0.1:9464), without a key; empty: on the main address at /metrics, which needs an admin key once keys exist", s, str(func(c *Config) *string { return &c.MetricsAddr })},
		{"cors-origins", "YAKOR_CORS_ORIGINS", "web origins (scheme://host:port, comma-separated) whose pages may call the API from a browser, with CORS headers; without keys every other page is refused", s, str(func(c *Config) *string { return &c.CORSOrigins })},
		{"ui-dir", "YAKOR_UI_DIR", "serve the web chat from this folder instead of the copy built in (for working on the UI: edits show on reload), e.g. web/ui", s, str(func(c *Config) *string { return &c.UIDir })},
		{"workers", "YAKOR_WORKERS", "post-turn jobs (a turn's upkeep: anchors, facts, grading, compaction; message embeddings) of each queue this instance runs at once; 0: enqueue only, another instance works the queues", s, num(func(c *Config) *int { return &c.Workers })},
		{"job-workers", "YAKOR_JOB_WORKERS", "per-queue overrides of --workers, e.g. upkeep=16,embeddings=4 (queues: upkeep, embeddings, research; research runs 1 unless told); an import's upkeep waits behind live turns' (a lower River priority)", s, str(func(c *Config) *string { return &c.JobWorkers })},

		{"window-chars", "YAKOR_WINDOW_CHARS", "history window budget in characters", m, num(func(c *Config) *int { return &c.WindowChars })},
		{"prompt-chars", "YAKOR_PROMPT_CHARS", "budget of a whole prompt with what its searches find, in characters: the window's oldest messages give way to fit it (its summary, its newest 2,000 characters, the facts, the anchors, the memory and the message stay)", m, num(func(c *Config) *int { return &c.PromptChars })},
		{"max-message-chars", "YAKOR_MAX_MESSAGE_CHARS", "longest user message accepted, in characters", m, num(func(c *Config) *int { return &c.MaxMessageChars })},
		{"max-reply-chars", "YAKOR_MAX_REPLY_CHARS", "longest reply kept, in characters: a longer one is cut there (finish_reason length) and the turn's error says so", m, num(func(c *Config) *int { return &c.MaxReplyChars })},
		{"max-import-messages", "YAKOR_MAX_IMPORT_MESSAGES", "earlier messages an OpenAI-compatible request may import into a new conversation; more is refused (400, param messages)", m, num(func(c *Config) *int { return &c.MaxImportMessages })},
		{"system-prompt", "YAKOR_SYSTEM_PROMPT", "system prompt replacing the built-in one", m, str(func(c *Config) *string { return &c.SystemPrompt })},
		{"search-rounds", "YAKOR_SEARCH_ROUNDS", "searches the model may make in one turn (SEARCH_HISTORY); 0 turns search off", m, num(func(c *Config) *int { return &c.SearchRounds })},
		{"search-budget", "YAKOR_SEARCH_BUDGET", "characters of history hits one search adds to the prompt, their framing included; at most three fifths of --prompt-chars", m, num(func(c *Config) *int { return &c.SearchBudget })},
		{"search-tool", "YAKOR_SEARCH_TOOL", "also offer history search as a search_history tool, for model servers that support tools", m, yes(func(c *Config) *bool { return &c.SearchTool })},
		{"search-semantic", "YAKOR_SEARCH_SEMANTIC", "embed every message (a job after the turn) and fuse a nearest-neighbour leg into history search", m, yes(func(c *Config) *bool { return &c.SearchSemantic })},
		{"search-meaning", "YAKOR_SEARCH_MEANING", "without search-semantic, fuse a leg finding English messages by meaning without a model (GloVe word vectors averaged over the newest 3,000 messages) into history search; off: by words alone", m, yes(func(c *Config) *bool { return &c.SearchMeaning })},
		{"anchor-mode", "YAKOR_ANCHOR_MODE", "when messages are anchored: async (a durable job after the reply), sync (before the answer) or off", m, str(func(c *Config) *string { return &c.AnchorMode })},
		{"anchor-threshold", "YAKOR_ANCHOR_THRESHOLD", "characters the current topic must have run for a changed topic to set a new anchor at once", m, num(func(c *Config) *int { return &c.AnchorThreshold })},
		{"anchor-min-span", "YAKOR_ANCHOR_MIN_SPAN", "characters the current topic must have run for a changed topic without figures that stayed changed (two of the user's messages) to set a new anchor; shorter detours stay in the current one", m, num(func(c *Config) *int { return &c.AnchorMinSpan })},
		{"anchor-topic-cosine", "YAKOR_ANCHOR_TOPIC_COSINE", "with an embedding model configured, the cosine similarity of two topics' embeddings at or above which they are the same subject (the words alone decide offline)", m, frac(func(c *Config) *float64 { return &c.AnchorTopicCosine })},
		{"anchor-budget", "YAKOR_ANCHOR_BUDGET", "characters of the anchors block in every prompt", m, num(func(c *Config) *int { return &c.AnchorBudget })},
		{"grading", "YAKOR_GRADING", "grade replies after they are sent (helper model, or the offline heuristics) and learn from the grades", m, yes(func(c *Config) *bool { return &c.Grading })},
		{"grade-rate", "YAKOR_GRADE_RATE", "share of replies graded, 0 to 1 (the same reply always is or is not); a user's thumbs up or down is learned from whatever the rate", m, frac(func(c *Config) *float64 { return &c.GradeRate })},
		{"memory-budget", "YAKOR_MEMORY_BUDGET", "characters of long-term memory (examples, notes, warnings) recalled into each prompt; 0 leaves it out", m, num(func(c *Config) *int { return &c.MemoryBudget })},
		{"memory-min-score", "YAKOR_MEMORY_MIN_SCORE", "lowest similarity (cosine, plus the topic boost) at which an experience is recalled into a prompt by meaning", m, frac(func(c *Config) *float64 { return &c.MemoryMinScore })},
		{"memory-lexical", "YAKOR_MEMORY_LEXICAL", "recall experiences by the message's words too (stems, rare words weighing more), fused with recall by meaning; off: by meaning alone", m, yes(func(c *Config) *bool { return &c.MemoryLexical })},
		{"memory-min-lexical", "YAKOR_MEMORY_MIN_LEXICAL", "lowest share of the message's keywords, weighed by rarity, that an experience must hold (two at least, one in its topic or question) to be recalled by its words", m, frac(func(c *Config) *float64 { return &c.MemoryMinLexical })},
		{"memory-merge", "YAKOR_MEMORY_MERGE", "cosine similarity at which a new experience merges into a stored one instead of adding a near-duplicate", m, frac(func(c *Config) *float64 { return &c.MemoryMerge })},
		{"compaction", "YAKOR_COMPACTION", "summarize what is about to scroll out of a thread's window (a job after the turn); the messages stay", m, yes(func(c *Config) *bool { return &c.Compaction })},
		{"facts", "YAKOR_FACTS", "extract durable facts (names, versions, budgets, deadlines, decisions, preferences) after each turn", m, yes(func(c *Config) *bool { return &c.Facts })},
		{"fact-budget", "YAKOR_FACT_BUDGET", "characters of the facts block in every prompt", m, num(func(c *Config) *int { return &c.FactBudget })},
		{"fact-cap-chat", "YAKOR_FACT_CAP_CHAT", "current facts kept per chat; over it the least recently used are closed, corrections and blockers last", m, num(func(c *Config) *int { return &c.FactCapChat })},
		{"fact-cap-user", "YAKOR_FACT_CAP_USER", "current facts kept per user", m, num(func(c *Config) *int { return &c.FactCapUser })},
		{"fact-cap-project", "YAKOR_FACT_CAP_PROJECT", "current facts kept per project of a user", m, num(func(c *Config) *int { return &c.FactCapProject })},

		{"searxng-url", "YAKOR_SEARXNG_URL", "SearXNG instance the research job searches (its JSON format enabled); empty leaves research topics pending", r, str(func(c *Config) *string { return &c.SearXNGURL })},
		{"research-schedule", "YAKOR_RESEARCH_SCHEDULE", "when the research job runs: a cron spec (5 fields, or @every 1h, @daily…); off: only when asked", r, str(func(c *Config) *string { return &c.ResearchSchedule })},
		{"research-allow-private", "YAKOR_RESEARCH_ALLOW_PRIVATE", "let the research fetcher reach private, loopback and link-local addresses (tests and intranets only)", r, yes(func(c *Config) *bool { return &c.ResearchAllowPrivate })},
		{"research-results", "YAKOR_RESEARCH_RESULTS", "search results read per research topic", r, num(func(c *Config) *int { return &c.ResearchResults })},
		{"research-fetch-timeout", "YAKOR_RESEARCH_FETCH_TIMEOUT", "time one research page fetch may take", r, dur(func(c *Config) *time.Duration { return &c.ResearchFetchTimeout })},
		{"research-max-bytes", "YAKOR_RESEARCH_MAX_BYTES", "largest research page read, in bytes; bigger pages are skipped", r, num(func(c *Config) *int { return &c.ResearchMaxBytes })},

		{"openai-base-url", "OPENAI_BASE_URL", "OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 for Ollama; empty: api.openai.com", md, str(func(c *Config) *string { return &c.OpenAIBaseURL })},
		{"openai-api-key", "OPENAI_API_KEY", "API key for the model server (prefer the environment variable: flags show in ps)", md, str(func(c *Config) *string { return &c.OpenAIAPIKey })},
		{"chat-provider", "YAKOR_CHAT_PROVIDER", "provider of the chat model: openai or offline; empty: openai when a chat model is named, else offline", md, str(func(c *Config) *string { return &c.Chat.Provider })},
		{"chat-model", "YAKOR_CHAT_MODEL", "chat model name, e.g. gpt-4o-mini or llama3.1", md, str(func(c *Config) *string { return &c.Chat.Model })},
		{"helper-provider", "YAKOR_HELPER_PROVIDER", "provider of the helper model (topics, grading, facts, summaries)", md, str(func(c *Config) *string { return &c.Helper.Provider })},
		{"helper-model", "YAKOR_HELPER_MODEL", "helper model name; empty: the chat model", md, str(func(c *Config) *string { return &c.Helper.Model })},
		{"embed-provider", "YAKOR_EMBED_PROVIDER", "provider of the embedding model", md, str(func(c *Config) *string { return &c.Embed.Provider })},
		{"embed-model", "YAKOR_EMBED_MODEL", "embedding model name, e.g. text-embedding-3-small", md, str(func(c *Config) *string { return &c.Embed.Model })},
		{"model-timeout", "YAKOR_MODEL_TIMEOUT", "time one model call may take, all of its retries and a whole streamed reply included", md, dur(func(c *Config) *time.Duration { return &c.ModelTimeout })},
		{"model-retries", "YAKOR_MODEL_RETRIES", "retries of a model call on 429, 5xx and connection errors", md, num(func(c *Config) *int { return &c.ModelRetries })},

		{"log-level", "YAKOR_LOG_LEVEL", "debug, info, warn or error", l, str(func(c *Config) *string { return &c.LogLevel })},
		{"log-format", "YAKOR_LOG_FORMAT", "text or json", l, str(func(c *Config) *string { return &c.LogFormat })},
		{"shutdown-timeout", "YAKOR_SHUTDOWN_TIMEOUT", "time given to requests in flight on SIGINT/SIGTERM", l, dur(func(c *Config) *time.Duration { return &c.ShutdownTimeout })},
	}
}
