package web

import (
	"cmp"
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/mnemos"
	"yakor/sufler"
)

// Memory is a tenant's long-term memory: experiences, research topics and
// the grader's fails.
type Memory interface {
	Experiences(ctx context.Context, scope yakor.Scope, f mnemos.ExperienceFilter) ([]mnemos.Experience, error)
	Experience(ctx context.Context, scope yakor.Scope, id int64) (mnemos.Experience, error)
	AddExperience(ctx context.Context, scope yakor.Scope, x mnemos.Experience) (mnemos.Experience, bool, error)
	DeleteExperience(ctx context.Context, scope yakor.Scope, id int64) error
	ShareExperience(ctx context.Context, scope yakor.Scope, id int64, force bool) (mnemos.Experience, error)
	Topics(ctx context.Context, scope yakor.Scope, status string, page yakor.Page) ([]mnemos.Topic, error)
	AddTopic(ctx context.Context, scope yakor.Scope, topic string) (mnemos.Topic, bool, error)
	Fails(ctx context.Context, scope yakor.Scope, page yakor.Page) ([]mnemos.Fail, error)
}

// Feedback takes a user's thumbs up or down on a reply.
type Feedback interface {
	Feedback(ctx context.Context, scope yakor.Scope, messageID int64, f sufler.Feedback) (sufler.FeedbackResult, error)
}

func registerMemoryRoutes(g *gin.RouterGroup, s *Server) {
	g.GET("/experiences", s.handleExperienceIndex)
	g.POST("/experiences", s.handleExperienceCreate)
	g.GET("/experiences/:id", s.handleExperienceShow)
	g.DELETE("/experiences/:id", s.handleExperienceDelete)
	g.POST("/experiences/:id/share", s.handleExperienceShare)
	g.GET("/research/topics", s.handleTopicIndex)
	g.POST("/research/topics", s.handleTopicCreate)
	g.GET("/research/fails", s.handleFailIndex)
	g.POST("/messages/:id/feedback", s.handleFeedback)
}

// intQuery reads an optional whole-number query parameter.
func intQuery(c *gin.Context, name string) (int, error) {
	v := c.Query(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, yakor.Errorf(yakor.EINVALID, "%s must be a non-negative whole number, not %q", name, v)
	}
	return n, nil
}

func pathID(c *gin.Context, what string) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, yakor.Errorf(yakor.ENOTFOUND, "%s %q not found", what, c.Param("id"))
	}
	return id, nil
}

// handleExperienceIndex lists experiences: ?level=1|2|3, ?limit=, ?before=
// (an id, for the next page).
func (s *Server) handleExperienceIndex(c *gin.Context) {
	p, err := readPage(c)
	var f mnemos.ExperienceFilter
	if err == nil {
		if f.Level, err = intQuery(c, "level"); err == nil {
			var before int
			before, err = intQuery(c, "before") // the cursor's older form
			f.Before = cmp.Or(p.cursor.ID, int64(before))
		}
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	f.Limit = p.limit + 1
	xs, err := s.memory.Experiences(c.Request.Context(), memoryScope(c), f)
	if err != nil {
		s.fail(c, err)
		return
	}
	xs, next := paged(xs, p, func(x mnemos.Experience) pageCursor { return pageCursor{ID: x.ID} })
	c.JSON(http.StatusOK, pageBody("experiences", xs, next))
}

func (s *Server) handleExperienceShow(c *gin.Context) {
	id, err := pathID(c, "experience")
	if err != nil {
		s.fail(c, err)
		return
	}
	x, err := s.memory.Experience(c.Request.Context(), memoryScope(c), id)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, x)
}

// experienceCreate adds an entry by hand: a research note (level 2, the
// default) or an example or warning.
type experienceCreate struct {
	Level    *int   `json:"level"`
	Topic    string `json:"topic"`
	Title    string `json:"title"` // level 2: the article's title (or question)
	Question string `json:"question"`
	Note     string `json:"note"` // level 2: the study note (or answer)
	Answer   string `json:"answer"`
	Reason   string `json:"reason"`
	URL      string `json:"url"`
}

func (s *Server) handleExperienceCreate(c *gin.Context) {
	var in experienceCreate
	if err := s.decode(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	x := mnemos.Experience{Level: mnemos.L2, Topic: in.Topic, Question: in.Question, Answer: in.Answer, Reason: in.Reason, URL: in.URL, Source: mnemos.SourceManual}
	if in.Level != nil {
		x.Level = *in.Level
	}
	if x.Question == "" {
		x.Question = in.Title
	}
	if x.Answer == "" {
		x.Answer = in.Note
	}
	out, merged, err := s.memory.AddExperience(c.Request.Context(), memoryScope(c), x)
	if err != nil {
		s.fail(c, err)
		return
	}
	status := http.StatusCreated
	if merged {
		status = http.StatusOK
	}
	c.JSON(status, gin.H{"experience": out, "merged": merged})
}

func (s *Server) handleExperienceDelete(c *gin.Context) {
	id, err := pathID(c, "experience")
	if err != nil {
		s.fail(c, err)
		return
	}
	if err := s.memory.DeleteExperience(c.Request.Context(), memoryScope(c), id); err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": gin.H{"experiences": 1}})
}

// handleTopicIndex lists research topics: ?status=pending|running|done|failed.
func (s *Server) handleTopicIndex(c *gin.Context) {
	p, err := readPage(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	ts, err := s.memory.Topics(c.Request.Context(), memoryScope(c), c.Query("status"), p.idPage())
	if err != nil {
		s.fail(c, err)
		return
	}
	ts, next := paged(ts, p, func(t mnemos.Topic) pageCursor { return pageCursor{ID: t.ID} })
	c.JSON(http.StatusOK, pageBody("topics", ts, next))
}

// topicCreate is a research topic by hand: {"topic"}.
type topicCreate struct {
	Topic string `json:"topic"`
}

func (s *Server) handleTopicCreate(c *gin.Context) {
	var in topicCreate
	if err := s.decode(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	t, created, err := s.memory.AddTopic(c.Request.Context(), memoryScope(c), in.Topic)
	if err != nil {
		s.fail(c, err)
		return
	}
	status := http.StatusCreated
	if !created {
		status = http.StatusOK
	}
	c.JSON(status, gin.H{"topic": t, "created": created})
}

func (s *Server) handleFailIndex(c *gin.Context) {
	p, err := readPage(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	fs, err := s.memory.Fails(c.Request.Context(), memoryScope(c), p.idPage())
	if err != nil {
		s.fail(c, err)
		return
	}
	fs, next := paged(fs, p, func(f mnemos.Fail) pageCursor { return pageCursor{ID: f.ID} })
	c.JSON(http.StatusOK, pageBody("fails", fs, next))
}

// feedbackGive is a user's verdict on a reply: {"thumb": "up"|"down",
// "comment"?}.
type feedbackGive struct {
	Thumb   string `json:"thumb"`
	Comment string `json:"comment"`
}

// handleFeedback takes {"thumb": "up"|"down", "comment"?} on a reply.
func (s *Server) handleFeedback(c *gin.Context) {
	id, err := pathID(c, "message")
	if err != nil {
		s.fail(c, err)
		return
	}
	var in feedbackGive
	if err := s.decode(c, &in); err != nil {
		s.fail(c, err)
		return
	}
	r, err := s.feedback.Feedback(c.Request.Context(), scopeOf(c), id, sufler.Feedback{Thumb: in.Thumb, Comment: in.Comment})
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, r)
}
