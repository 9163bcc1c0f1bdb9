package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"yakor"
)

// experienceShare is {"force"?: false}: share even what looks personal.
type experienceShare struct {
	Force bool `json:"force"`
}

// handleExperienceShare shares one of the tenant's entries with every user
// of the tenant (admin keys only): a shared copy, derived from it. An
// entry that looks personal (a long number, an e-mail, a phone, a URL with
// a query, a name) is refused with 409 unless forced.
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
	shared, err := s.memory.ShareExperience(c.Request.Context(), memoryScope(c), id, in.Force)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"experience": shared})
}
