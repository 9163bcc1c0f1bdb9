package mnemos

import (
	"context"
	"strings"

	"yakor"
	"yakor/facts"
	"yakor/postgres"
)

// ShareExperience makes a shared copy of one of the tenant's experiences:
// the tenant's own entry (no user, thread or messages of the original),
// recalled for every user, derived_from the original. The original stays as
// it was. Sharing an entry that is shared already, or that was shared
// before, returns that shared entry. scope must be the tenant's (an admin);
// an entry that may hold personal data (personal) is ECONFLICT unless
// force.
func (s *Store) ShareExperience(ctx context.Context, scope yakor.Scope, id int64, force bool) (Experience, error) {
	if scope.UserID != "" {
		return Experience{}, yakor.Errorf(yakor.EFORBIDDEN, "only the tenant's admin shares an entry with every user")
	}
	x, err := s.Experience(ctx, scope, id)
	if err != nil {
		return Experience{}, err
	}
	if what, personal := x.personal(); personal && !force {
		return Experience{}, yakor.Errorf(yakor.ECONFLICT, "experience %d may hold personal data (%s); edit it, or send {\"force\": true} to share it as it is", id, what)
	}
	const q = `WITH src AS (
    SELECT * FROM experiences WHERE tenant_id = $1 AND id = $2
), done AS (
    SELECT e.id FROM experiences e, src
    WHERE e.tenant_id = $1 AND (e.id = src.id AND src.visibility = 'shared' OR e.derived_from = src.id)
    LIMIT 1
), ins AS (
    INSERT INTO experiences (tenant_id, level, topic, question, answer, reason, score, source, url,
        source_message_ids, space_id, embedding, visibility, derived_from)
    SELECT tenant_id, level, topic, question, answer, reason, score, source, url,
        '{}', space_id, embedding, 'shared', id
    FROM src WHERE NOT EXISTS (SELECT 1 FROM done)
    RETURNING id
)
SELECT id FROM done UNION ALL SELECT id FROM ins`
	var shared int64
	err = s.db.QueryRow(ctx, q, scope.TenantID, id).Scan(&shared)
	if err != nil {
		return Experience{}, postgres.NotFound("share experience", err, yakor.Errorf(yakor.ENOTFOUND, "experience %d not found", id))
	}
	// The tenant's view leaves out the shared twin of an entry it sees
	// (visible3), which the twin now is: it is read as the admin's own.
	return s.experience(ctx, scope, shared, `$3 = ''`)
}

// personal says whether x's text may hold personal data, and what
// (facts.Personal): such an entry is never shared without an admin's say.
func (x Experience) personal() (string, bool) {
	return facts.Personal(strings.Join([]string{x.Topic, x.Question, x.Answer, x.Reason}, "\n"))
}
