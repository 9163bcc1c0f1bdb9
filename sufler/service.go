package sufler

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"yakor"
	"yakor/history"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/words"
)

// Router routes a grade into long-term memory.
type Router interface {
	Route(ctx context.Context, g mnemos.Graded) (mnemos.Routed, error)
}

// Turns tells what the turn that wrote a reply showed its model: the user
// message it answered and the messages of its window and search hits
// (ENOTFOUND for no such turn).
type Turns interface {
	Seen(ctx context.Context, scope yakor.Scope, turnID string) (question int64, seen []int64, err error)
}

// Messages reads a thread's messages.
type Messages interface {
	FindMessage(ctx context.Context, scope yakor.Scope, id int64) (history.Message, error)
	FindMessages(ctx context.Context, scope yakor.Scope, ids []int64) ([]history.Message, error)
	Neighbour(ctx context.Context, scope yakor.Scope, id int64, role string, dir int) (history.Message, bool, error)
}

// Service grades replies after they are sent (the grading job) and takes
// users' thumbs up and down, and routes both into long-term memory.
type Service struct {
	grader    *Grader
	router    Router
	messages  Messages
	turns     Turns
	log       *slog.Logger
	fallbacks prometheus.Counter
}

// NewService returns a Service. reg may be nil.
func NewService(grader *Grader, router Router, messages Messages, turns Turns, log *slog.Logger, reg prometheus.Registerer) *Service {
	s := &Service{grader: grader, router: router, messages: messages, turns: turns, log: log,
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "yakor_grade_fallbacks_total",
			Help: "Replies graded offline because the helper model kept failing through every attempt of the grading job.",
		})}
	if reg != nil {
		reg.MustRegister(s.fallbacks)
	}
	return s
}

// exchange is a reply with what it answered and what the model saw.
type exchange struct {
	Exchange
	scope    yakor.Scope
	question history.Message
	reply    history.Message
}

// load reads reply replyID of scope's user (in any of the user's threads
// when scope names none) with its question, the context its turn saw, and
// the user's next message.
func (s *Service) load(ctx context.Context, scope yakor.Scope, replyID int64, withContext bool) (exchange, error) {
	reply, err := s.messages.FindMessage(ctx, scope, replyID)
	if err != nil {
		return exchange{}, err
	}
	if reply.Role != history.RoleAssistant {
		return exchange{}, yakor.Errorf(yakor.EINVALID, "message %d is not a reply of the assistant: only replies are graded", replyID)
	}
	ex := exchange{scope: scope.WithThread(reply.ThreadID), reply: reply}
	ex.Answer = reply.Content
	var contextIDs []int64
	questionID := int64(0)
	if withContext && reply.TurnID != "" {
		questionID, contextIDs, err = s.turns.Seen(ctx, ex.scope, reply.TurnID)
		if err != nil && yakor.ErrorCode(err) != yakor.ENOTFOUND {
			return exchange{}, err
		}
	}
	if questionID != 0 {
		ex.question, err = s.messages.FindMessage(ctx, ex.scope, questionID)
		if err != nil {
			return exchange{}, err
		}
	} else {
		q, ok, err := s.messages.Neighbour(ctx, ex.scope, reply.ID, history.RoleUser, -1)
		if err != nil {
			return exchange{}, err
		}
		if ok {
			ex.question = q
		}
	}
	ex.Question = ex.question.Content
	if len(contextIDs) > 0 {
		msgs, err := s.messages.FindMessages(ctx, ex.scope, contextIDs)
		if err != nil {
			return exchange{}, err
		}
		var b strings.Builder
		for _, m := range msgs {
			fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
		}
		ex.Context = b.String()
	}
	next, ok, err := s.messages.Neighbour(ctx, ex.scope, reply.ID, history.RoleUser, 1)
	if err != nil {
		return exchange{}, err
	}
	if ok {
		ex.NextUser = next.Content
	}
	return ex, nil
}

// GradeReply grades reply replyID of scope's thread with the grader and
// routes the grade. A helper-model failure is returned for the job to retry
// with backoff, except on the final attempt, when the reply is graded
// offline instead (and the fallback counted). Grading twice routes once.
// When the reply's question corrects the reply before it, that one is
// graded again too, now that its correction is known.
func (s *Service) GradeReply(ctx context.Context, scope yakor.Scope, replyID int64, final bool) error {
	ex, err := s.load(ctx, scope, replyID, true)
	if err != nil {
		if yakor.ErrorCode(err) == yakor.ENOTFOUND {
			s.log.InfoContext(ctx, "reply to grade is gone", "reply", replyID, "err", err)
			return nil
		}
		return err
	}
	if err := s.grade(ctx, ex, final); err != nil {
		return err
	}
	return s.corrected(ctx, ex, func(pex exchange) error { return s.grade(ctx, pex, final) })
}

// corrected grades, with grade, the reply before ex's question when that
// question corrects it.
func (s *Service) corrected(ctx context.Context, ex exchange, grade func(exchange) error) error {
	if ex.question.ID == 0 || !Corrects(ex.Question) {
		return nil
	}
	prev, ok, err := s.messages.Neighbour(ctx, ex.scope, ex.question.ID, history.RoleAssistant, -1)
	if err != nil || !ok {
		return err
	}
	pex, err := s.load(ctx, ex.scope, prev.ID, true)
	if err != nil {
		return err
	}
	return grade(pex)
}

// GradeRead routes a grade the caller read for reply replyID of scope's
// thread (the turn's one helper call, package upkeep), given by grader
// (the helper model's name); a nil g grades the reply offline. A reply
// whose question corrects the reply before it has that one graded again,
// offline (a correction is the offline grader's first rule).
func (s *Service) GradeRead(ctx context.Context, scope yakor.Scope, replyID int64, g *Grade, grader string) error {
	// The context the turn saw is read only for the offline grade.
	ex, err := s.load(ctx, scope, replyID, g == nil)
	if err != nil {
		if yakor.ErrorCode(err) == yakor.ENOTFOUND {
			return nil
		}
		return err
	}
	var gr Grade
	if g != nil {
		gr = g.settle(grader, ex.Question)
	} else {
		gr = Offline(ex.Exchange)
	}
	if err := s.route(ctx, ex, gr); err != nil {
		return err
	}
	return s.corrected(ctx, ex, func(pex exchange) error { return s.route(ctx, pex, Offline(pex.Exchange)) })
}

func (s *Service) grade(ctx context.Context, ex exchange, final bool) error {
	g, err := s.grader.Grade(ctx, ex.Exchange)
	if err != nil {
		if !final {
			return err
		}
		s.fallbacks.Inc()
		s.log.WarnContext(ctx, "the helper model failed on every attempt; grading offline", "reply", ex.reply.ID, "err", err)
		g = Offline(ex.Exchange)
		g.Grader = GraderOffline + " (helper model failed)"
	}
	return s.route(ctx, ex, g)
}

// route routes the grader's grade of ex.
func (s *Service) route(ctx context.Context, ex exchange, g Grade) error {
	r, err := s.router.Route(ctx, s.graded(ex, g, mnemos.SourceModel))
	if err != nil {
		return err
	}
	s.log.DebugContext(ctx, "reply graded", "reply", ex.reply.ID, "score", g.Score, "grader", g.Grader, "level", r.Level, "merged", r.Merged, "skipped", r.Skipped)
	return nil
}

func (s *Service) graded(ex exchange, g Grade, source string) mnemos.Graded {
	return mnemos.Graded{
		Scope: ex.scope, QuestionMessageID: ex.question.ID, ReplyMessageID: ex.reply.ID,
		Question: ex.Question, Answer: stripNotice(ex.Answer), Score: g.Score, Reason: g.Reason,
		ResearchTopic: g.ResearchTopic, Topic: words.Topic(ex.Question, nil),
		Grader: g.Grader, Source: source, Canned: llm.IsOfflineReply(ex.Answer),
	}
}

// Thumbs.
const (
	ThumbUp   = "up"
	ThumbDown = "down"
)

// Feedback is a user's verdict on a reply.
type Feedback struct {
	Thumb   string // ThumbUp or ThumbDown
	Comment string // optional: why
}

// FeedbackResult is what a user's feedback did.
type FeedbackResult struct {
	MessageID int64         `json:"message_id"`
	Score     int           `json:"score"`
	Routed    mnemos.Routed `json:"routed"`
}

// MaxCommentChars bounds a feedback comment.
const MaxCommentChars = 2000

// Feedback records a user's thumbs up (a grade of 5) or down (1) on one of
// their replies and routes it; it outranks the grader's grade. Giving the
// same thumb again changes nothing; the other thumb re-routes. Errors:
// EINVALID (bad thumb or comment, or the message is not a reply),
// ENOTFOUND (no such message of the user's).
func (s *Service) Feedback(ctx context.Context, scope yakor.Scope, messageID int64, f Feedback) (FeedbackResult, error) {
	f.Comment = strings.TrimSpace(f.Comment)
	if err := history.ValidText("comment", f.Comment, MaxCommentChars); err != nil {
		return FeedbackResult{}, err
	}
	g := Grade{Grader: "user", Reason: f.Comment}
	switch f.Thumb {
	case ThumbUp:
		g.Score = 5
		if g.Reason == "" {
			g.Reason = "The user marked the answer as good."
		}
	case ThumbDown:
		g.Score = 1
		if g.Reason == "" {
			g.Reason = "The user marked the answer as bad."
		}
	default:
		return FeedbackResult{}, yakor.Errorf(yakor.EINVALID, `thumb must be "up" or "down"`)
	}
	ex, err := s.load(ctx, yakor.Scope{TenantID: scope.TenantID, UserID: scope.UserID}, messageID, false)
	if err != nil {
		return FeedbackResult{}, err
	}
	if g.Score <= 2 {
		g.ResearchTopic = topic(ex.Question)
	}
	r, err := s.router.Route(ctx, s.graded(ex, g, mnemos.SourceUser))
	if err != nil {
		return FeedbackResult{}, fmt.Errorf("feedback: %w", err)
	}
	return FeedbackResult{MessageID: messageID, Score: g.Score, Routed: r}, nil
}

// Corrects reports whether a user's message corrects the answer before it
// (the offline grader's first rule).
func Corrects(message string) bool {
	_, ok := match(message, corrections)
	return ok
}
