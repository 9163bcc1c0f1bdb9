package likbez

import (
	"context"
	"fmt"
	"strings"
	"time"

	"yakor"
	"yakor/mnemos"
)

// research studies one topic: the source's top results, each page read,
// summarized and stored. Failures of single pages are collected, not
// fatal; the topic fails only when no page gave an article.
func (s *Service) research(ctx context.Context, t mnemos.DueTopic) TopicReport {
	tr := TopicReport{TenantID: t.TenantID, ID: t.ID, Topic: t.Topic}
	results, err := s.source.Search(ctx, t.Topic, s.cfg.Results)
	if err != nil {
		tr.Errors = append(tr.Errors, "search: "+err.Error())
		s.log.WarnContext(ctx, "research search failed", "topic", t.ID, "err", err)
		return tr
	}
	if len(results) == 0 {
		tr.Errors = append(tr.Errors, "the search found nothing")
	}
	for _, res := range results {
		if ctx.Err() != nil {
			return tr
		}
		if err := s.article(ctx, t, res); err != nil {
			tr.Errors = append(tr.Errors, res.URL+": "+err.Error())
			s.log.InfoContext(ctx, "research page left out", "topic", t.ID, "url", res.URL, "err", err)
			continue
		}
		tr.Articles++
	}
	s.log.InfoContext(ctx, "research topic studied", "topic", t.ID, "text", t.Topic, "results", len(results), "articles", tr.Articles)
	return tr
}

// article reads one page, writes its study note and stores it, indexed
// into long-term memory. A page stored before (by a run that was cut off)
// is stored once: the article is keyed by topic and URL, and an article
// already indexed is not indexed again.
func (s *Service) article(ctx context.Context, t mnemos.DueTopic, res Result) error {
	page, err := s.fetch.Fetch(ctx, res.URL)
	if err != nil {
		return err
	}
	title := strings.TrimSpace(page.Title)
	if title == "" {
		title = strings.TrimSpace(res.Title)
	}
	note, err := s.note(ctx, t.Topic, title, page)
	if err != nil {
		return err
	}
	const upsert = `INSERT INTO research_articles (tenant_id, topic_id, theme, url, title, note, fetched_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (tenant_id, topic_id, url) DO UPDATE SET title = excluded.title, note = excluded.note,
    fetched_at = excluded.fetched_at, updated_at = excluded.updated_at
RETURNING id, experience_id`
	var (
		id      int64
		indexed *int64
	)
	if err := s.db.QueryRow(ctx, upsert, t.TenantID, t.ID, t.Topic, cutRunes(page.URL, 2000), cutRunes(title, 500), note, time.Now()).Scan(&id, &indexed); err != nil {
		return fmt.Errorf("store article: %w", err)
	}
	s.metrics.articles.Inc()
	if indexed != nil {
		return nil
	}
	x, _, err := s.index.AddExperience(ctx, yakor.Scope{TenantID: t.TenantID}, mnemos.Experience{
		Level: mnemos.L2, Topic: t.Topic, Question: nonEmpty(title, page.URL), Answer: note, URL: cutRunes(page.URL, 2000), Source: mnemos.SourceResearch,
	})
	if err != nil {
		return fmt.Errorf("index article: %w", err)
	}
	if _, err := s.db.Exec(ctx, `UPDATE research_articles SET experience_id = $3 WHERE tenant_id = $1 AND id = $2`, t.TenantID, id, x.ID); err != nil {
		return fmt.Errorf("index article: %w", err)
	}
	return nil
}

func nonEmpty(s, otherwise string) string {
	if strings.TrimSpace(s) != "" {
		return s
	}
	return otherwise
}

// cutRunes shortens s to n runes.
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
