package upkeep

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"

	"yakor"
	"yakor/anchors"
	"yakor/facts"
	"yakor/history"
	"yakor/sufler"
)

// read asks the helper about msgs, one call per part of at most
// BatchChars characters; with no helper, or for a part the helper could
// not read, the reading is empty and the services read offline.
func (s *Service) read(ctx context.Context, scope yakor.Scope, msgs []history.Message) (reading, error) {
	all := reading{grader: s.cfg.Model, topics: map[int64]anchors.Extraction{}, said: map[int64]facts.Said{}, grades: map[int64]sufler.Grade{}}
	if s.helper == nil || len(msgs) == 0 {
		return all, nil
	}
	grade := s.toGrade(msgs)
	base, err := s.known(ctx, scope)
	if err != nil {
		return reading{}, err
	}
	for _, part := range runs(msgs, s.cfg.BatchChars) {
		j := base
		j.msgs = part
		j.grade = slices.DeleteFunc(slices.Clone(grade), func(id int64) bool { return !holds(part, id) })
		if j.hits, err = s.hits(ctx, scope, part); err != nil {
			return reading{}, err
		}
		r, err := s.ask(ctx, j)
		if err != nil {
			if ctx.Err() != nil {
				return reading{}, ctx.Err()
			}
			s.fallbacks.Inc()
			s.log.WarnContext(ctx, "the helper could not read the thread's new messages; reading them offline", "thread", scope.ThreadID, "messages", len(part), "err", err)
			continue
		}
		if all.grader == "" {
			all.grader = r.grader
		}
		maps.Copy(all.topics, r.topics)
		maps.Copy(all.said, r.said)
		maps.Copy(all.grades, r.grades)
	}
	return all, nil
}

// ask makes j's call, and once more when the answer is malformed.
func (s *Service) ask(ctx context.Context, j job) (reading, error) {
	req := request(j)
	for attempt := 1; ; attempt++ {
		res, err := s.helper.Complete(ctx, req)
		if err != nil {
			return reading{}, err
		}
		r, err := parse(res.Text, j)
		if err == nil {
			r.grader = cmp.Or(res.Model, "helper")
			return r, nil
		}
		if !errors.Is(err, errMalformed) || attempt == 2 {
			return reading{}, err
		}
		s.log.InfoContext(ctx, "the helper's reading was malformed; asking once more", "err", err)
	}
}

// known is what the conversation knows already: its current anchor and
// its facts, newest first.
func (s *Service) known(ctx context.Context, scope yakor.Scope) (job, error) {
	var j job
	if s.parts.Anchors != nil {
		a, ok, err := s.parts.Anchors.Current(ctx, scope)
		if err != nil {
			return job{}, err
		}
		if ok {
			j.topic, j.data = a.Topic, a.Data
		}
	}
	if s.parts.Facts != nil {
		j.wantFact = true
		fs, err := s.parts.Facts.Visible(ctx, scope)
		if err != nil {
			return job{}, err
		}
		for _, f := range slices.Backward(fs) {
			j.facts = append(j.facts, f.Text)
		}
	}
	return j, nil
}

// hits are the search hits the replies of msgs were given, each cut.
func (s *Service) hits(ctx context.Context, scope yakor.Scope, msgs []history.Message) ([]string, error) {
	var ids []int64
	for _, m := range msgs {
		if m.Role != history.RoleAssistant || m.TurnID == "" || s.parts.Turns == nil {
			continue
		}
		found, err := s.parts.Turns.Found(ctx, scope, m.TurnID)
		if err != nil && yakor.ErrorCode(err) != yakor.ENOTFOUND {
			return nil, err
		}
		ids = append(ids, found...)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := s.parts.Messages.FindMessages(ctx, scope, ids)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(found))
	for i, m := range found {
		out[i] = m.Role + ": " + cut(m.Content, hitRunes)
	}
	return out, nil
}

// runs splits msgs into runs of at most n characters (a longer message
// is a run of its own).
func runs(msgs []history.Message, n int) [][]history.Message {
	var out [][]history.Message
	start, size := 0, 0
	for i, m := range msgs {
		if i > start && size+m.Chars > n {
			out = append(out, msgs[start:i])
			start, size = i, 0
		}
		size += m.Chars
	}
	if start < len(msgs) {
		out = append(out, msgs[start:])
	}
	return out
}

// holds tells whether msgs hold message id.
func holds(msgs []history.Message, id int64) bool {
	return slices.ContainsFunc(msgs, func(m history.Message) bool { return m.ID == id })
}
