package search

import (
	"context"
	"fmt"
	"math"

	"yakor"
)

// Defaults of the semantic leg.
const (
	// DefaultMinSimilarity is the cosine similarity under which a semantic
	// neighbour is left out of the ranking: below it, meaning is noise.
	DefaultMinSimilarity = 0.2
	// SemanticCandidates is how many neighbours Search asks its Semantic
	// for: as many as each lexical leg hands to the fusion.
	SemanticCandidates = legTop
)

// Neighbour is a message found by meaning.
type Neighbour struct {
	MessageID  int64
	Similarity float64 // cosine similarity of the message's and the query's embeddings, in [-1, 1]
}

// Semantic finds a thread's messages nearest in meaning to a query:
// mnemos.MessageIndex is one.
type Semantic interface {
	// Nearest returns up to k messages of scope's thread older than
	// beforeID (0: all), nearest first. It must scope by tenant, user and
	// thread as the searcher does.
	Nearest(ctx context.Context, scope yakor.Scope, query string, k int, beforeID int64) ([]Neighbour, error)
}

// WithSemantic returns a copy of s that fuses the semantic leg, sem's
// nearest neighbours of the query, into its ranking (nil: none). The leg
// runs beside the lexical ones, at the same time, so sem must not share a
// transaction with s.
func (s *Searcher) WithSemantic(sem Semantic) *Searcher {
	c := *s
	c.semantic = sem
	return &c
}

// semanticResult is the semantic leg's ranked list, or why it failed.
type semanticResult struct {
	list []scored
	err  error
}

// startSemantic runs the semantic leg in its own goroutine and returns the
// channel its result arrives on (buffered: the leg never blocks on a search
// that returned early), or nil when the leg is off for this search.
func (s *Searcher) startSemantic(ctx context.Context, scope yakor.Scope, query string, opt Options) <-chan semanticResult {
	if s.semantic == nil || opt.NoSemantic {
		return nil
	}
	out := make(chan semanticResult, 1)
	go func() {
		list, err := s.semanticLeg(ctx, scope, query, opt)
		out <- semanticResult{list: list, err: err}
	}()
	return out
}

// semanticLeg asks the semantic index for the query's nearest messages and
// keeps those similar enough, older than opt.BeforeID, once each, in the
// index's order (nearest first).
func (s *Searcher) semanticLeg(ctx context.Context, scope yakor.Scope, query string, opt Options) (list []scored, err error) {
	defer func() {
		if p := recover(); p != nil {
			list, err = nil, fmt.Errorf("search: semantic leg: panic: %v", p)
		}
	}()
	ns, err := s.semantic.Nearest(ctx, scope, query, SemanticCandidates, opt.BeforeID)
	if err != nil {
		return nil, fmt.Errorf("search: semantic leg: %w", err)
	}
	minSim := opt.MinSimilarity
	switch {
	case minSim == 0:
		minSim = DefaultMinSimilarity
	case minSim < 0:
		minSim = math.Inf(-1)
	}
	seen := make(map[int64]bool, len(ns))
	for _, n := range ns {
		if len(list) == SemanticCandidates {
			break
		}
		// A NaN similarity (a vector without words) is never similar enough.
		if !(n.Similarity >= minSim) || n.MessageID <= 0 || seen[n.MessageID] ||
			(opt.BeforeID != 0 && n.MessageID >= opt.BeforeID) {
			continue
		}
		seen[n.MessageID] = true
		// The index's order is the leg's (Meaning's is by a centered
		// cosine, not by Similarity): the score ranks it, no two alike.
		list = append(list, scored{id: n.MessageID, score: -float64(len(list))})
	}
	return list, nil
}

// awaitSemantic waits for the semantic leg started by startSemantic (nil:
// none). A failed leg leaves the search to the lexical legs and is reported
// in res.SemanticErr, unless ctx is done: then the search fails.
func awaitSemantic(ctx context.Context, legs <-chan semanticResult, res *Result) ([]scored, error) {
	if legs == nil {
		return nil, nil
	}
	var r semanticResult
	select {
	case r = <-legs:
	case <-ctx.Done():
		return nil, fmt.Errorf("search: semantic leg: %w", ctx.Err())
	}
	if r.err != nil {
		if ctx.Err() != nil {
			return nil, r.err
		}
		res.SemanticErr = r.err
		return nil, nil
	}
	res.Semantic = len(r.list)
	return r.list, nil
}
