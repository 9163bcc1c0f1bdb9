package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"yakor"
	"yakor/facts"
)

// experienceShare is {"force"?: false}: share even what looks personal.
type experienceShare struct {
	Force bool `json:"force"`
}

// handleExperienceShare shares one of the tenant's entries with every user
// of the tenant (admin keys only): a shared copy, derived from it. An
// entry that looks personal (facts.Personal: a long number, an e-mail, a
// phone, a URL with a query, a name) is refused with 409 unless forced.
func (s *Server) handleExperienceShare(c *gin.Context) {
	if !tenantAdmin(c) {
		s.fail(c, yakor.Errorf(yakor.EFORBIDDEN, "only an admin key shares an entry with every user of the tenant"))
		return
	}
	id, err := pathID(c, "experience")
	if err != nil {
		s.fail(c, err)
		return
	}
	var in experienceShare
	if c.Request.ContentLength != 0 {
		if err := s.decode(c, &in); err != nil {
			s.fail(c, err)
			return
		}
	}
	ctx, scope := c.Request.Context(), memoryScope(c)
	x, err := s.memory.Experience(ctx, scope, id)
	if err != nil {
		s.fail(c, err)
		return
	}
	if what, personal := facts.Personal(x.Topic + "\n" + x.Question + "\n" + x.Answer + "\n" + x.Reason); personal && !in.Force {
		s.fail(c, yakor.Errorf(yakor.ECONFLICT, "experience %d may hold personal data (%s); edit it, or send {\"force\": true} to share it as it is", id, what))
		return
	}
	shared, err := s.memory.ShareExperience(ctx, scope, id)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"experience": shared})
}
