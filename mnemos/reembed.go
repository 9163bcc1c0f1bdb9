package mnemos

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"yakor/postgres"
)

// ReembedResult counts what Reembed rewrote.
type ReembedResult struct {
	Experiences int `json:"experiences"`
	Topics      int `json:"topics"`
}

// reembedBatch is how many rows one embedding call and one transaction take.
const reembedBatch = 128

// Reembed moves every tenant's experiences and research topics into the
// store's embedding space, re-embedding them from their text in batches:
// run it after changing the embedding model (`yakor mnemos reembed`). Rows
// already in the space are left as they are unless all is set. It can be
// stopped and run again: each batch is committed on its own. This is an
// operator's command, so it walks all tenants; every row it writes is
// addressed by its tenant and id.
func (s *Store) Reembed(ctx context.Context, all bool) (ReembedResult, error) {
	space, _, err := s.space.ID(ctx)
	if err != nil {
		return ReembedResult{}, err
	}
	var r ReembedResult
	for _, t := range []struct {
		count  *int
		read   string
		update string
	}{
		{&r.Experiences,
			`SELECT tenant_id::text AS tenant_id, id, CASE WHEN level = 2 THEN topic || E'\n' || question ELSE question END AS text
FROM experiences WHERE ($1 OR space_id IS DISTINCT FROM $2) AND (tenant_id, id) > ($3::uuid, $4)
ORDER BY tenant_id, id LIMIT $5`,
			`UPDATE experiences SET space_id = $3, embedding = $4 WHERE tenant_id = $1 AND id = $2`},
		{&r.Topics,
			`SELECT tenant_id::text AS tenant_id, id, topic AS text FROM research_topics WHERE ($1 OR space_id IS DISTINCT FROM $2) AND (tenant_id, id) > ($3::uuid, $4)
ORDER BY tenant_id, id LIMIT $5`,
			`UPDATE research_topics SET space_id = $3, embedding = $4 WHERE tenant_id = $1 AND id = $2`},
	} {
		tenant, id := "00000000-0000-0000-0000-000000000000", int64(0)
		for {
			type row struct {
				TenantID string
				ID       int64
				Text     string
			}
			rows, err := s.db.Query(ctx, t.read, all, space, tenant, id, reembedBatch)
			if err != nil {
				return r, postgres.Wrap("reembed", err)
			}
			batch, err := pgx.CollectRows(rows, pgx.RowToStructByName[row])
			if err != nil {
				return r, postgres.Wrap("reembed", err)
			}
			if len(batch) == 0 {
				break
			}
			texts := make([]string, len(batch))
			for i, x := range batch {
				texts[i] = x.Text
			}
			sp, vecs, err := s.space.Embed(ctx, texts)
			if err != nil {
				return r, fmt.Errorf("reembed: %w", err)
			}
			err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
				for i, x := range batch {
					if _, err := tx.Exec(ctx, t.update, x.TenantID, x.ID, sp, vecs[i]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return r, postgres.Wrap("reembed", err)
			}
			*t.count += len(batch)
			last := batch[len(batch)-1]
			tenant, id = last.TenantID, last.ID
		}
	}
	// The levels' sizes in the space changed: they are counted again.
	s.sizes.Clear()
	return r, nil
}
