package web

import (
	"context"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"yakor"
	"yakor/account"
)

// Keys checks API keys.
type Keys interface {
	Authenticate(ctx context.Context, secret string) (account.Caller, error)
	HasKeys(ctx context.Context) (bool, error)
	MarkUsed(ctx context.Context, keyID string) error
}

// auth holds what authentication remembers between requests: whether keys
// exist (checked at most every few seconds), and each key's rate limiter
// and count of turns in flight.
type auth struct {
	keys       Keys
	allowLocal bool

	mu        sync.Mutex
	hasKeys   bool
	checkedAt time.Time
	limiters  map[string]*rate.Limiter
	turns     map[string]int
	used      map[string]time.Time // when each key's use was last recorded
}

func newAuth(keys Keys, allowLocal bool) *auth {
	return &auth{keys: keys, allowLocal: allowLocal, limiters: map[string]*rate.Limiter{}, turns: map[string]int{}, used: map[string]time.Time{}}
}

const callerKey = "yakor.caller"

// authenticate resolves the caller: the key in "Authorization: Bearer …",
// whose requests are held to its rate; or, while the server has no keys at
// all and listens on loopback only, the one local user, whatever bearer the
// request carries.
func (s *Server) authenticate() gin.HandlerFunc {
	return func(c *gin.Context) {
		a := s.auth
		secret, hasKey := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer ")
		secret = strings.TrimSpace(secret)
		// Without keys any request is the local user's, also one with a
		// bearer: OpenAI clients always send one.
		local, err := s.keyless(c)
		if err != nil {
			s.abort(c, err)
			return
		}
		if local {
			s.proceedAs(c, s.local)
			return
		}
		if !hasKey || secret == "" {
			s.abort(c, yakor.Errorf(yakor.EUNAUTHORIZED, "this server needs an API key: send \"Authorization: Bearer <key>\" (an operator makes one with `yakor keys create`)"))
			return
		}
		caller, err := a.keys.Authenticate(c.Request.Context(), secret)
		if err != nil {
			s.abort(c, err)
			return
		}
		if wait := a.reserve(caller); wait > 0 {
			c.Header("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
			s.abort(c, yakor.Errorf(yakor.ETOOMANY, "this key is over its rate of %d requests a minute; retry in %s", caller.RatePerMinute, wait.Round(time.Second)))
			return
		}
		a.markUsed(s.log, caller.KeyID)
		c.Set(callerKey, caller)
		s.proceedAs(c, caller.Scope)
	}
}

// proceedAs has the request act as scope, or as the end user its
// X-Yakor-User names (for a caller who may name one: actForEndUser; a
// keyless request acts as a backend key), and goes on to the handler.
func (s *Server) proceedAs(c *gin.Context, scope yakor.Scope) {
	actAs(c, scope)
	if err := s.actForEndUser(c, c.GetHeader(headerUser)); err != nil {
		s.abort(c, err)
		return
	}
	c.Next()
}

// actAs has the request act as scope: handlers read it with scopeOf, and
// the database holds the request's queries to its tenant.
func actAs(c *gin.Context, scope yakor.Scope) {
	c.Set(scopeKey, scope)
	c.Request = c.Request.WithContext(scope.Context(c.Request.Context()))
}

// turnSlot holds one of the key's concurrent turns for the request, or
// refuses it with 429.
func (s *Server) turnSlot() gin.HandlerFunc {
	return func(c *gin.Context) {
		v, ok := c.Get(callerKey)
		if !ok {
			c.Next()
			return
		}
		caller := v.(account.Caller)
		a := s.auth
		a.mu.Lock()
		if a.turns[caller.KeyID] >= caller.MaxTurns {
			a.mu.Unlock()
			c.Header("Retry-After", "1")
			s.abort(c, yakor.Errorf(yakor.ETOOMANY, "this key already has %d turns in flight, its limit; retry when one finishes", caller.MaxTurns))
			return
		}
		a.turns[caller.KeyID]++
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			a.turns[caller.KeyID]--
			a.mu.Unlock()
		}()
		c.Next()
	}
}

// localAllowed reports whether a request without a key acts as the local
// user: only while no key was ever made, on a loopback-only server. Keys
// are looked for at most every 2 s, and no more once found.
func (a *auth) localAllowed(ctx context.Context) (bool, error) {
	if !a.allowLocal {
		return false, nil
	}
	a.mu.Lock()
	fresh := time.Since(a.checkedAt) < 2*time.Second
	has := a.hasKeys
	a.mu.Unlock()
	if !fresh && !has {
		var err error
		if has, err = a.keys.HasKeys(ctx); err != nil {
			return false, err
		}
		a.mu.Lock()
		// Keys are never deleted: once seen (or made here), they stay, even
		// if a check that began before keyMade ends after it.
		a.hasKeys = a.hasKeys || has
		a.checkedAt = time.Now()
		has = a.hasKeys
		a.mu.Unlock()
	}
	return !has, nil
}

// keyMade records that a key now exists, so that requests without one are
// refused at once rather than after the next check.
func (a *auth) keyMade() {
	a.mu.Lock()
	a.hasKeys, a.checkedAt = true, time.Now()
	a.mu.Unlock()
}

// reserve takes one request from the key's budget, returning how long to
// wait when there is none left (0: go ahead).
func (a *auth) reserve(caller account.Caller) time.Duration {
	a.mu.Lock()
	l, ok := a.limiters[caller.KeyID]
	if !ok || l.Burst() != max(caller.RatePerMinute/6, 1) {
		l = rate.NewLimiter(rate.Limit(float64(caller.RatePerMinute)/60), max(caller.RatePerMinute/6, 1))
		a.limiters[caller.KeyID] = l
	}
	a.mu.Unlock()
	r := l.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return d
	}
	return 0
}

// abort ends the request with err.
func (s *Server) abort(c *gin.Context, err error) {
	s.fail(c, err)
	c.Abort()
}

// markUsedEvery is how often a key's last use is written at most.
const markUsedEvery = 30 * time.Second

// markUsed records a key's use off the request path, at most every
// markUsedEvery a key: a database that takes no writes (read-only, a
// standby) must not refuse the reads it can serve, and a busy key must not
// write on every request. A failure is logged, never the request's.
func (a *auth) markUsed(log *slog.Logger, id string) {
	a.mu.Lock()
	if time.Since(a.used[id]) < markUsedEvery {
		a.mu.Unlock()
		return
	}
	a.used[id] = time.Now()
	a.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := a.keys.MarkUsed(ctx, id); err != nil {
			log.Debug("could not record a key's use", "key", id, "err", err)
		}
	}()
}
