package bench

// The labelled set of yakor bench mnemos (data/mnemos_recall.json): study
// notes, examples and warnings in English and Russian, and questions, each
// with the entry it should recall or none. It measures what recall finds
// with its vector leg alone and with the lexical leg beside it, over a grid
// of the two legs' thresholds, which is how mnemos's defaults were chosen.

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"yakor"
	"yakor/mnemos"
	"yakor/words"
)

//go:embed data/mnemos_recall.json
var mnemosSetJSON []byte

// mnemosSet is data/mnemos_recall.json.
type mnemosSet struct {
	Entries []struct {
		Key string `json:"key"`
		mnemos.Experience
	} `json:"entries"`
	Questions []struct {
		Q      string `json:"q"`
		Expect string `json:"expect"` // the key of the entry it should recall; "": none
	} `json:"questions"`
}

// readMnemosSet parses the embedded set.
func readMnemosSet() (mnemosSet, error) {
	var s mnemosSet
	if err := json.Unmarshal(mnemosSetJSON, &s); err != nil {
		return s, fmt.Errorf("bench: data/mnemos_recall.json: %w", err)
	}
	return s, nil
}

// mnemosSetGrid are the thresholds the set is measured at: the vector
// leg's lowest score, and the lexical leg's (0: the leg off).
var (
	mnemosSetMinScores   = []float64{0.35, 0.45, 0.55}
	mnemosSetMinLexicals = []float64{0, 0.4, 0.5, 0.6, 0.7}
)

// mnemosSetScore is what recall found for the set's questions at one pair
// of thresholds.
type mnemosSetScore struct {
	MinScore   float64 `json:"min_score"`
	MinLexical float64 `json:"min_lexical"` // 0: the lexical leg off
	Found      int     `json:"found"`       // questions whose entry was recalled
	Expected   int     `json:"expected"`    // questions with an entry
	Quiet      int     `json:"quiet"`       // questions with none that recalled no entry of the set
	Unrelated  int     `json:"unrelated"`   // questions with none
	Extra      int     `json:"extra"`       // other entries of the set recalled beside an expected one
	P50        float64 `json:"p50_ms"`
}

// addMnemosSet stores the set's entries in scope's tenant as the tenant's
// own (shared): the notes as the research job writes them, the examples and
// warnings as an admin would. It returns their ids by key.
func addMnemosSet(ctx context.Context, store *mnemos.Store, scope yakor.Scope, set mnemosSet) (map[string]int64, error) {
	ids := make(map[string]int64, len(set.Entries))
	tenant := yakor.Scope{TenantID: scope.TenantID}
	for _, e := range set.Entries {
		x := e.Experience
		x.Source = mnemos.SourceManual
		if x.Level == mnemos.L2 {
			x.Source = mnemos.SourceResearch
		}
		got, merged, err := store.AddExperience(ctx, tenant, x)
		if err != nil {
			return nil, fmt.Errorf("bench mnemos: labelled entry %s: %w", e.Key, err)
		}
		if merged {
			return nil, fmt.Errorf("bench mnemos: labelled entry %s merged into experience %d", e.Key, got.ID)
		}
		ids[e.Key] = got.ID
	}
	return ids, nil
}

// scoreMnemosSet asks store every question of the set as scope's user.
func scoreMnemosSet(ctx context.Context, store *mnemos.Store, scope yakor.Scope, set mnemosSet, ids map[string]int64) (mnemosSetScore, error) {
	cfg := store.Config().Recall
	sc := mnemosSetScore{MinScore: cfg.MinSimilarity, MinLexical: cfg.MinLexical}
	if cfg.NoLexical {
		sc.MinLexical = 0
	}
	ours := map[int64]bool{}
	for _, id := range ids {
		ours[id] = true
	}
	var took samples
	for _, q := range set.Questions {
		start := time.Now()
		r, err := store.Recall(ctx, scope, q.Q, words.Lang(q.Q))
		if err != nil {
			return sc, err
		}
		took = append(took, ms(time.Since(start)))
		n := 0
		for _, e := range r.Entries {
			if ours[e.ID] {
				n++
			}
		}
		if q.Expect == "" {
			sc.Unrelated++
			if n == 0 {
				sc.Quiet++
			}
			continue
		}
		sc.Expected++
		if slices.ContainsFunc(r.Entries, func(e mnemos.Recalled) bool { return e.ID == ids[q.Expect] }) {
			sc.Found++
			sc.Extra += n - 1
		}
	}
	sc.P50 = took.pct(50)
	return sc, nil
}

// sweepMnemosSet adds the set to scope's tenant and scores it at every
// pair of thresholds of the grid, each on a store like base but for them.
func sweepMnemosSet(ctx context.Context, db mnemos.DB, space *mnemos.Space, base mnemos.Config, scope yakor.Scope, log *slog.Logger) ([]mnemosSetScore, error) {
	set, err := readMnemosSet()
	if err != nil {
		return nil, err
	}
	ids, err := addMnemosSet(ctx, mnemos.NewStore(db, space, base, log, nil), scope, set)
	if err != nil {
		return nil, err
	}
	var out []mnemosSetScore
	for _, ms := range mnemosSetMinScores {
		for _, ml := range mnemosSetMinLexicals {
			cfg := base
			cfg.Recall.MinSimilarity, cfg.Recall.MinLexical, cfg.Recall.NoLexical = ms, ml, ml == 0
			sc, err := scoreMnemosSet(ctx, mnemos.NewStore(db, space, cfg, log, nil), scope, set, ids)
			if err != nil {
				return nil, err
			}
			out = append(out, sc)
		}
	}
	return out, nil
}

// printMnemosSet writes the grid, the defaults' rows marked.
func printMnemosSet(w io.Writer, scores []mnemosSetScore, def mnemos.RecallConfig) {
	if len(scores) == 0 {
		return
	}
	s := scores[0]
	fmt.Fprintf(w, "\nlabelled set (data/mnemos_recall.json: %d questions with an expected entry, %d with none), in the measured tenant:\n\n", s.Expected, s.Unrelated)
	fmt.Fprintln(w, "| min score | lexical leg, min | expected entry recalled | no entry for unrelated questions | other entries beside the expected | recall p50 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, s := range scores {
		lex := "off"
		if s.MinLexical > 0 {
			lex = fmt.Sprintf("%.2f", s.MinLexical)
		}
		mark := ""
		if s.MinScore == def.MinSimilarity && (s.MinLexical == def.MinLexical || s.MinLexical == 0) {
			mark = " (default" + map[bool]string{true: ", vector leg alone)", false: ")"}[s.MinLexical == 0]
		}
		fmt.Fprintf(w, "| %.2f%s | %s | %d of %d (%.0f%%) | %d of %d (%.0f%%) | %d | %.2f ms |\n", s.MinScore, mark, lex,
			s.Found, s.Expected, percent(s.Found, s.Expected), s.Quiet, s.Unrelated, percent(s.Quiet, s.Unrelated), s.Extra, s.P50)
	}
}

func percent(n, of int) float64 { return 100 * float64(n) / float64(max(of, 1)) }
