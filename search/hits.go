package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"yakor"
	"yakor/llm"
	"yakor/postgres"
)

// hitGroup is a ranked message with the messages before and after it, and
// their sizes.
type hitGroup struct {
	hit, prev, next Hit
	hc, pc, nc      int
}

// fill reads the ranked messages with the messages around them and takes
// them in rank order, the named speakers' messages favoured (favour), while
// they fit the budget. A short hit brings the
// message before it (what "Yes, twice!" answers), a question brings the
// one after it (its answer); what budget is left then takes the other
// messages around the hits (around).
func (s *Searcher) fill(ctx context.Context, scope yakor.Scope, ranked []scored, opt Options, named []string) ([]Hit, int, error) {
	ranked = ranked[:min(len(ranked), opt.Limit*2)]
	found, err := s.readHits(ctx, scope, ranked, opt)
	if err != nil {
		return nil, 0, err
	}
	favour(ranked, found, named)
	hits, used := pack(ranked, found, opt)
	return hits, used, nil
}

// favour weighs the ranked messages by a speaker in named speakerBoost
// times more, and orders them again.
func favour(ranked []scored, found map[int64]hitGroup, named []string) {
	if len(named) == 0 {
		return
	}
	for i, r := range ranked {
		if g, ok := found[r.id]; ok && slices.Contains(named, g.hit.Author) {
			ranked[i].score *= speakerBoost
		}
	}
	slices.SortStableFunc(ranked, byScore)
}

var readHitsSQL = `
SELECT h.id, m.role, m.author, m.content, m.chars, m.created_at,
       coalesce(p.id, 0), coalesce(p.role, ''), coalesce(p.author, ''), coalesce(p.content, ''), coalesce(p.chars, 0), coalesce(p.created_at, m.created_at),
       coalesce(x.id, 0), coalesce(x.role, ''), coalesce(x.author, ''), coalesce(x.content, ''), coalesce(x.chars, 0), coalesce(x.created_at, m.created_at)
FROM unnest($4::bigint[]) AS h(id)
JOIN messages m ON m.tenant_id = $1 AND m.user_id = $2 AND m.thread_id = $3 AND m.id = h.id
LEFT JOIN LATERAL (
    SELECT id, role, author, content, chars, created_at FROM messages
    WHERE $5 AND tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND id < h.id AND kind <> 'summary' AND superseded_at IS NULL
    ` + postgres.NewestFirst + ` LIMIT 1
) p ON true
LEFT JOIN LATERAL (
    SELECT id, role, author, content, chars, created_at FROM messages
    WHERE $5 AND tenant_id = $1 AND user_id = $2 AND ` + postgres.OneThread("$3") + ` AND id > h.id AND ($6::bigint = 0 OR id < $6) AND kind <> 'summary' AND superseded_at IS NULL
    ` + postgres.OldestFirst + ` LIMIT 1
) x ON true`

// canned reports whether h is a reply of the offline model, which only
// quotes the conversation back: a search finds the message it quotes
// instead, and does not spend its budget twice.
func canned(h Hit) bool {
	return h.Role == "assistant" && llm.IsOfflineReply(h.Content)
}

// readHits reads the ranked messages with their neighbours, by id; the
// offline model's replies among them are left out (canned).
func (s *Searcher) readHits(ctx context.Context, scope yakor.Scope, ranked []scored, opt Options) (map[int64]hitGroup, error) {
	ids := make([]int64, len(ranked))
	for i, r := range ranked {
		ids[i] = r.id
	}
	rows, err := s.db.Query(ctx, readHitsSQL, scope.TenantID, scope.UserID, scope.ThreadID, ids, !opt.NoNeighbours, opt.BeforeID)
	if err != nil {
		return nil, postgres.Wrap("search: read hits", err)
	}
	found := map[int64]hitGroup{}
	for rows.Next() {
		var g hitGroup
		if err := rows.Scan(&g.hit.MessageID, &g.hit.Role, &g.hit.Author, &g.hit.Content, &g.hc, &g.hit.CreatedAt,
			&g.prev.MessageID, &g.prev.Role, &g.prev.Author, &g.prev.Content, &g.pc, &g.prev.CreatedAt,
			&g.next.MessageID, &g.next.Role, &g.next.Author, &g.next.Content, &g.nc, &g.next.CreatedAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("search: read hits: %w", err)
		}
		if canned(g.hit) {
			continue
		}
		if canned(g.prev) {
			g.prev = Hit{}
		}
		if canned(g.next) {
			g.next = Hit{}
		}
		found[g.hit.MessageID] = g
	}
	if err := rows.Err(); err != nil {
		return nil, postgres.Wrap("search: read hits", err)
	}
	return found, nil
}

// pack takes the found groups in rank order while they fit the budget and
// the limit; it returns the hits and their characters.
func pack(ranked []scored, found map[int64]hitGroup, opt Options) ([]Hit, int) {
	var (
		hits  = []Hit{}
		used  int
		taken = map[int64]bool{}
	)
	fits := func(c int) bool { return opt.Budget < 0 || used+c <= opt.Budget }
	for _, r := range ranked {
		if len(hits) >= opt.Limit {
			break
		}
		g, ok := found[r.id]
		if !ok || taken[r.id] || !fits(g.hc) {
			continue
		}
		if g.hc >= shortHit {
			g.prev = Hit{}
		}
		if !strings.HasSuffix(strings.TrimSpace(g.hit.Content), "?") {
			g.next = Hit{}
		}
		score := math.Round(r.score*1e6) / 1e6
		// The answer after a question goes before the message before a
		// short hit, when only one of them has room.
		room, need := opt.Limit-len(hits)-1, g.hc
		withNext := g.next.MessageID != 0 && !taken[g.next.MessageID] && room > 0 && fits(need+g.nc)
		if withNext {
			room, need = room-1, need+g.nc
		}
		withPrev := g.prev.MessageID != 0 && !taken[g.prev.MessageID] && room > 0 && fits(need+g.pc)
		if withPrev {
			need += g.pc
			g.prev.Neighbour, g.prev.Score = true, score
			hits = append(hits, g.prev)
			taken[g.prev.MessageID] = true
		}
		g.hit.Score = score
		hits = append(hits, g.hit)
		taken[r.id] = true
		if withNext {
			g.next.Neighbour, g.next.Score = true, score
			hits = append(hits, g.next)
			taken[g.next.MessageID] = true
		}
		used += need
	}
	if opt.NoNeighbours {
		return hits, used
	}
	return around(ranked, found, hits, used, taken, opt)
}

// around spends what budget and limit the hits left on the messages around
// them, before and after each, in rank order: a conversation's answer is
// often next to what names it, in words the query does not share. On
// LoCoMo this finds 1.6 points more of the questions' evidence within the
// same budget (7.7 more of the questions that share no keyword with it).
func around(ranked []scored, found map[int64]hitGroup, hits []Hit, used int, taken map[int64]bool, opt Options) ([]Hit, int) {
	fits := func(c int) bool { return opt.Budget < 0 || used+c <= opt.Budget }
	for _, r := range ranked {
		g, ok := found[r.id]
		if !ok || !taken[r.id] {
			continue
		}
		for _, n := range []struct {
			h Hit
			c int
		}{{g.prev, g.pc}, {g.next, g.nc}} {
			if n.h.MessageID == 0 || taken[n.h.MessageID] || len(hits) >= opt.Limit || !fits(n.c) {
				continue
			}
			n.h.Neighbour, n.h.Score = true, math.Round(r.score*1e6)/1e6
			hits = append(hits, n.h)
			taken[n.h.MessageID] = true
			used += n.c
		}
	}
	return hits, used
}
