package bench

// The per-turn cost of recall, for yakor bench mnemos.

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"

	"yakor"
	"yakor/facts"
	"yakor/history"
	"yakor/llm"
	"yakor/mnemos"
	"yakor/turn"
)

// benchMnemosTurns runs turns on a fresh thread of the measured tenant
// through two engines, one without long-term memory and one with it,
// alternating, and reads each turn's timings from its trace.
func benchMnemosTurns(ctx context.Context, db *database, cfg Config, log *slog.Logger, store *mnemos.Store, scope yakor.Scope, gen *mnemosGen, sample []mnemosQ, n, turns int) (off, on mnemosTurnStats, err error) {
	hist := history.NewStore(db.pool)
	th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{Title: fmt.Sprintf("bench mnemos %d", n)})
	if err != nil {
		return off, on, err
	}
	scope = scope.WithThread(th.ID)
	rng := rand.New(rand.NewPCG(uint64(n), 17))
	for done := 0; done < n; done += 10_000 {
		msgs := make([]history.NewMessage, min(10_000, n-done))
		for i := range msgs {
			role := history.RoleUser
			if (done+i)%2 == 1 {
				role = history.RoleAssistant
			}
			msgs[i] = history.NewMessage{Role: role, Content: benchText(rng)}
		}
		if _, err := hist.Import(ctx, scope, msgs); err != nil {
			return off, on, err
		}
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE messages`); err != nil {
		return off, on, err
	}
	tc := turn.Config{WindowChars: cfg.WindowChars, AnchorMode: turn.AnchorOff}
	engines := [2]*turn.Engine{
		turn.NewEngine(db.pool, llm.NewOffline(), tc, log, nil),
		turn.NewEngine(db.pool, llm.NewOffline(), tc, log, nil).WithMemory(store, cfg.MemoryBudget).WithFacts(facts.NewStore(db.pool, facts.Config{}, log)),
	}
	type samples struct {
		mem, noSearch, rec, tot []float64
		prompt                  []int
		memChars                int
		searches                int
	}
	var got [2]samples
	warm := min(10, turns)
	for i := range warm + turns {
		order := [2]int{0, 1}
		if i%2 == 1 {
			order = [2]int{1, 0}
		}
		for _, k := range order {
			a := gen.ask(rng, sample, rng.IntN(3))
			out, err := engines[k].Send(ctx, scope, turn.Input{Content: a.text}, func(turn.Event) error { return nil })
			if err != nil {
				return off, on, err
			}
			if i < warm {
				continue
			}
			tr, err := engines[k].FindTrace(ctx, scope, out.TurnID)
			if err != nil {
				return off, on, err
			}
			s := &got[k]
			s.mem = append(s.mem, tr.Timings["memory"])
			searched := 0.0
			for _, st := range tr.Searches {
				searched += st.TookMS
			}
			s.noSearch = append(s.noSearch, tr.Timings["memory"]-searched)
			s.rec = append(s.rec, tr.Timings["memory_recall"])
			s.tot = append(s.tot, tr.Timings["total"])
			s.prompt = append(s.prompt, tr.PromptChars)
			s.searches += len(tr.Searches)
			for _, l := range tr.Layers {
				if l.Name == turn.LayerMemory {
					s.memChars += l.Chars
				}
			}
			if tr.MemoryError != "" {
				return off, on, fmt.Errorf("bench mnemos: turn %s left memory out: %s", tr.ID, tr.MemoryError)
			}
		}
	}
	var stats [2]mnemosTurnStats
	for k := range got {
		s := got[k]
		slices.Sort(s.mem)
		slices.Sort(s.noSearch)
		slices.Sort(s.rec)
		slices.Sort(s.tot)
		slices.Sort(s.prompt)
		stats[k] = mnemosTurnStats{
			N: len(s.mem), MemoryP50: pct(s.mem, 50), MemoryP99: pct(s.mem, 99), NoSearchP50: pct(s.noSearch, 50), NoSearchP99: pct(s.noSearch, 99), RecallP50: pct(s.rec, 50), RecallP99: pct(s.rec, 99),
			TotalP50: pct(s.tot, 50), PromptCharsP50: s.prompt[len(s.prompt)/2], MemoryChars: float64(s.memChars) / float64(len(s.mem)), Searches: s.searches,
		}
	}
	return stats[0], stats[1], nil
}

// The synthetic experiences: questions of six themes (prices, VAT,
// delivery, rent, travel, code) in English and Russian, each made from a
// template and slot values, so that a paraphrase (another template, the
// same slots) asks the same thing in other words.
