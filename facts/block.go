package facts

import (
	"context"

	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"yakor"
	"yakor/fence"
	"yakor/postgres"
)

// factWords are the facts block's fixed words in each language.
var factWords = map[string][4]string{
	"en": {"[FACTS to keep in mind]", "This conversation:", "The user:", "The project:"},
	"ru": {"[ФАКТЫ, которые нужно помнить]", "Этот разговор:", "Пользователь:", "Проект:"},
}

// Block is the facts layer of scope's thread's prompt, in lang: the chat's
// facts, the user's (preferences first) and the project's, each group most
// recently used first, within the budget; a fact that does not fit is left
// out. It returns the block ("" without facts) and the ids of the facts in
// it.
func (s *Store) Block(ctx context.Context, scope yakor.Scope, lang string) (string, []int64, error) {
	b := &pgx.Batch{}
	read := s.QueueBlock(b, scope)
	br := s.db.SendBatch(ctx, b)
	render, err := read(br)
	if cerr := br.Close(); err == nil {
		err = postgres.Wrap("list visible facts", cerr)
	}
	if err != nil {
		return "", nil, err
	}
	text, ids := render(lang)
	return text, ids, nil
}

// QueueBlock queues Block's reads in b, for a caller that sends them in
// one round trip with its own. It returns what reads their results (in
// b's order) and gives what lays the block out in a language (and names
// the facts in it).
func (s *Store) QueueBlock(b *pgx.Batch, scope yakor.Scope) func(pgx.BatchResults) (func(lang string) (string, []int64), error) {
	read := queueVisible(b, scope)
	return func(br pgx.BatchResults) (func(string) (string, []int64), error) {
		facts, err := read(br)
		if err != nil {
			return nil, err
		}
		return func(lang string) (string, []int64) {
			if len(facts) == 0 {
				return "", nil
			}
			return Render(facts, lang, s.cfg.Budget)
		}, nil
	}
}

// Render lays facts out as the facts block in lang within budget
// characters: the chat's facts, the user's (preferences first) and the
// project's, in the order given; a fact that does not fit is left out, and
// each is fenced (fence.Inline) so that no stored text can forge or close a
// block of the prompt. It returns the block ("" when no fact fits) and the
// ids of the facts in it.
func Render(facts []Fact, lang string, budget int) (string, []int64) {
	w, ok := factWords[lang]
	if !ok {
		w = factWords["en"]
	}
	groups := map[string][]Fact{}
	for _, f := range facts {
		groups[f.Scope] = append(groups[f.Scope], f)
	}
	// Preferences lead the user's group: they shape every answer.
	user := groups[ScopeUser]
	prefs := make([]Fact, 0, len(user))
	for _, f := range user {
		if f.Kind == KindPreference {
			prefs = append(prefs, f)
		}
	}
	for _, f := range user {
		if f.Kind != KindPreference {
			prefs = append(prefs, f)
		}
	}
	groups[ScopeUser] = prefs

	var b strings.Builder
	b.WriteString(w[0])
	left := budget - utf8.RuneCountInString(w[0])
	var ids []int64
	for i, scope := range []string{ScopeChat, ScopeUser, ScopeProject} {
		header := "\n" + w[i+1]
		wrote := false
		for _, f := range groups[scope] {
			line := "\n- " + fence.Inline(f.Text)
			need := utf8.RuneCountInString(line)
			if !wrote {
				need += utf8.RuneCountInString(header)
			}
			if need > left {
				continue
			}
			if !wrote {
				b.WriteString(header)
				wrote = true
			}
			b.WriteString(line)
			left -= need
			ids = append(ids, f.ID)
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	return b.String(), ids
}

// MarkUsed records that facts went into a prompt: the caps evict the least
// recently used first. It never waits for a row: one locked by another
// transaction (a fact extraction updating it, another turn marking it) is
// left unmarked this time. Waiting deadlocked under load (40P01: a turn's
// mark against an extraction updating the same facts in another order).
func (s *Store) MarkUsed(ctx context.Context, scope yakor.Scope, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	const q = `UPDATE facts f SET last_used_at = now(), used = f.used + 1
FROM (SELECT id FROM facts WHERE tenant_id = $1 AND user_id = $2 AND id = ANY($3) ORDER BY id FOR UPDATE SKIP LOCKED) AS l
WHERE f.tenant_id = $1 AND f.id = l.id`
	_, err := s.db.Exec(ctx, q, scope.TenantID, scope.UserID, ids)
	return postgres.Wrap("mark facts used", err)
}
