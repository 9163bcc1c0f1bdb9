// Package web is Yakor's HTTP interface: the REST API under /api/v1, the
// OpenAI-compatible endpoint under /v1 (its wire types in oaicompat), health
// and readiness probes and Prometheus metrics, on one gin engine. Handlers
// bind the request, make one domain call and render the result; errors are
// mapped to statuses in errors.go alone, in Yakor's shape or, under /v1,
// OpenAI's.
package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"yakor"
	"yakor/history"
	"yakor/postgres"
	"yakor/search"
	"yakor/turn"
)

// Turns runs turns and shows what they saw.
type Turns interface {
	Send(ctx context.Context, scope yakor.Scope, in turn.Input, fn func(turn.Event) error) (turn.Outcome, error)
	Context(ctx context.Context, scope yakor.Scope) (turn.Prompt, error)
	FindTrace(ctx context.Context, scope yakor.Scope, id string) (turn.Trace, error)
	Preview(ctx context.Context, scope yakor.Scope, message string) (turn.Preview, error)
	Import(ctx context.Context, scope yakor.Scope, msgs []history.NewMessage) ([]history.Message, error)
}

// Threads reads and writes threads and their messages.
type Threads interface {
	CreateThread(ctx context.Context, scope yakor.Scope, tc history.ThreadCreate) (history.Thread, error)
	FindThreads(ctx context.Context, scope yakor.Scope, f history.ThreadFilter) ([]history.Thread, error)
	FindThread(ctx context.Context, scope yakor.Scope) (history.Thread, error)
	RenameThread(ctx context.Context, scope yakor.Scope, title string) (history.Thread, error)
	Messages(ctx context.Context, scope yakor.Scope, f history.MessageFilter) ([]history.Message, error)
	OpenThread(ctx context.Context, scope yakor.Scope, o history.ThreadOpen) (history.Thread, bool, error)
	SetSystemPrompt(ctx context.Context, scope yakor.Scope, prompt string) (history.Thread, error)
	FindMessage(ctx context.Context, scope yakor.Scope, id int64) (history.Message, error)
	FindChain(ctx context.Context, scope yakor.Scope, chains [][]byte) (thread string, n int, err error)
	LinkBefore(ctx context.Context, scope yakor.Scope) ([]byte, error)
	Follow(ctx context.Context, scope yakor.Scope, history []history.NewMessage, next []byte, max int) (superseded, stored int64, err error)
}

// Searcher searches a thread's history.
type Searcher interface {
	Search(ctx context.Context, scope yakor.Scope, query string, opt search.Options) (search.Result, error)
}

// Projects resolves project names.
type Projects interface {
	EnsureProject(ctx context.Context, scope yakor.Scope, name string) (string, error)
}

// Pinger tells whether the database answers and whether it takes writes.
type Pinger interface {
	Ping(ctx context.Context) error
	ReadOnly(ctx context.Context) (bool, error)
}

// Deps is what the server is built from.
type Deps struct {
	Log      *slog.Logger
	Turns    Turns
	Threads  Threads
	Projects Projects
	Searcher Searcher
	Anchors  Anchors
	Memory   Memory
	Feedback Feedback
	Research Research
	Facts    Facts
	Resetter Resetter
	// ResearchQueue starts research runs.
	ResearchQueue ResearchQueue
	DB            Pinger
	// Gatherer serves /metrics; Registerer takes the HTTP metrics.
	Gatherer   prometheus.Gatherer
	Registerer prometheus.Registerer
	// LocalScope is the scope every request acts in while the server runs
	// for one local user (loopback, no API keys).
	LocalScope yakor.Scope
	// MaxBodyBytes bounds a request body; 0 means 2 MiB.
	MaxBodyBytes int64
	// Info describes the service to clients (GET /api/v1/info).
	Info Info
	// UIDir serves the web chat from this folder instead of the embedded
	// copy (development).
	UIDir string
	// Lifecycle deletes and exports users' data.
	Lifecycle Lifecycle
	// Users finds and makes end users (X-Yakor-User, /v1's user field);
	// nil refuses requests that name one.
	Users Users
	// Keys checks API keys; nil serves LocalScope to every request (tests).
	// When it is a KeyAdmin too, /api/v1/keys manages keys.
	Keys Keys
	// MaxImportMessages bounds the earlier messages a /v1 request imports
	// into a new conversation; 0 bounds nothing.
	MaxImportMessages int
	// MetricsElsewhere leaves /metrics out of the router: they are served on
	// an address of their own. Else /metrics needs an admin key once keys
	// exist.
	MetricsElsewhere bool
	// CORSOrigins are the web origins (scheme://host[:port]) allowed to call
	// the API from a browser, with CORS headers, in any mode.
	CORSOrigins []string
	// NoLocal refuses requests without a key even while no key exists (a
	// server listening beyond loopback).
	NoLocal bool
	// Diagnose says why the database cannot serve, when it can tell (the
	// private cluster's data folder read-only, missing or full): a coded
	// error whose message replaces the generic one of an EUNAVAILABLE
	// error. Nil, or returning nil: no diagnosis.
	Diagnose func() error
}

// Info is what clients are told about the service: the models in use, so
// a UI can say when the offline model answers.
type Info struct {
	Chat    ModelInfo `json:"chat"`
	Helper  ModelInfo `json:"helper"`
	Embed   ModelInfo `json:"embed"`
	Offline bool      `json:"offline"` // the chat model is the offline one
	// Version and Revision are the binary's module version and the
	// commit it was built from ("" when the build did not record it).
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
}

// ModelInfo names a role's model.
type ModelInfo struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// Server is Yakor's HTTP server.
type Server struct {
	log           *slog.Logger
	turns         Turns
	threads       Threads
	projects      Projects
	searcher      Searcher
	anchors       Anchors
	memory        Memory
	feedback      Feedback
	research      Research
	researchQueue ResearchQueue
	facts         Facts
	resetter      Resetter
	db            Pinger
	local         yakor.Scope
	info          Info
	auth          *auth
	keyAdmin      KeyAdmin
	users         Users
	lifecycle     Lifecycle
	corsOrigins   []string
	maxImport     int
	index         func(c *gin.Context) bool // serves the web chat for a page path
	maxBodyBytes  int64
	diagnose      func() error
	started       time.Time
	engine        *gin.Engine
}

// NewServer builds the gin engine with every route.
func NewServer(d Deps) *Server {
	gin.SetMode(gin.ReleaseMode)
	s := &Server{
		log: d.Log, turns: d.Turns, threads: d.Threads, projects: d.Projects, searcher: d.Searcher, anchors: d.Anchors, memory: d.Memory, feedback: d.Feedback, research: d.Research, researchQueue: d.ResearchQueue, facts: d.Facts, resetter: d.Resetter, db: d.DB, users: d.Users, lifecycle: d.Lifecycle, corsOrigins: d.CORSOrigins, maxImport: d.MaxImportMessages,
		local: d.LocalScope, maxBodyBytes: d.MaxBodyBytes, diagnose: d.Diagnose, info: d.Info, auth: newAuth(d.Keys, !d.NoLocal), started: time.Now(),
	}
	if s.maxBodyBytes <= 0 {
		s.maxBodyBytes = 2 << 20
	}
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.Use(s.recover(), s.observe(newHTTPMetrics(d.Registerer)), s.guard())
	e.NoRoute(func(c *gin.Context) {
		if s.index != nil && s.index(c) {
			return
		}
		c.Set(shapeKey, openAIPath(c))
		s.fail(c, yakor.Errorf(yakor.ENOTFOUND, "no such endpoint: %s %s", c.Request.Method, c.Request.URL.Path))
	})
	e.NoMethod(func(c *gin.Context) {
		c.Set(shapeKey, openAIPath(c))
		render(c, http.StatusMethodNotAllowed, yakor.Errorf(yakor.EINVALID, "method %s is not allowed on %s", c.Request.Method, c.Request.URL.Path))
	})

	e.GET("/healthz", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	e.GET("/readyz", s.handleReady)
	if !d.MetricsElsewhere {
		e.GET("/metrics", s.authenticate(), s.requireAdmin("read the metrics"), gin.WrapH(promhttp.HandlerFor(d.Gatherer, promhttp.HandlerOpts{})))
	}

	registerUI(e, s, d.UIDir)
	api := e.Group("/api/v1", s.authenticate())
	registerThreadRoutes(api, s)
	registerMessageRoutes(api, s)
	registerTurnRoutes(api, s)
	registerSearchRoutes(api, s)
	registerMemoryOnlyRoutes(api, s)
	registerAnchorRoutes(api, s)
	registerMemoryRoutes(api, s)
	registerResearchRoutes(api, s)
	registerFactRoutes(api, s)
	registerLifecycleRoutes(api, s)
	if ka, ok := d.Keys.(KeyAdmin); ok {
		s.keyAdmin = ka
		registerKeyRoutes(api, s)
	}
	api.GET("/info", func(c *gin.Context) { c.JSON(http.StatusOK, s.info) })
	registerOpenAIRoutes(e, s)
	registerOpenAPIRoutes(e)
	s.engine = e
	return s
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.engine.ServeHTTP(w, r) }

func (s *Server) handleReady(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := s.db.Ping(ctx); err != nil {
		msg := "the database does not answer"
		if d := s.diagnosis(); d != nil {
			msg = yakor.ErrorMessage(d)
		}
		c.JSON(http.StatusServiceUnavailable, gin.H{"status": "unavailable", "error": msg})
		return
	}
	if ro, err := s.db.ReadOnly(ctx); err == nil && ro {
		// Reads are served; a writer's load balancer may route elsewhere.
		c.JSON(http.StatusOK, gin.H{"status": "read-only", "writes": false, "error": postgres.MsgReadOnly})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready", "writes": true})
}

const scopeKey = "yakor.scope"

func scopeOf(c *gin.Context) yakor.Scope {
	return c.MustGet(scopeKey).(yakor.Scope)
}

func (s *Server) recover() gin.HandlerFunc {
	return gin.CustomRecovery(func(c *gin.Context, err any) {
		s.log.ErrorContext(c.Request.Context(), "panic serving request", "path", c.Request.URL.Path, "panic", err)
		render(c, http.StatusInternalServerError, errors.New("panic"))
	})
}
