package bench

// The per-turn cost of recall, for yakor bench mnemos.

import (
	"context"
	"fmt"
	"math/rand/v2"

	"yakor"
	"yakor/app"
	"yakor/history"
	"yakor/turn"
)

// benchMnemosTurns runs turns on a fresh thread of n messages of the
// measured tenant through two apps, one without long-term memory in its
// prompts and one with it (mnemosApps), alternating, and reads each turn's
// timings from its trace.
func benchMnemosTurns(ctx context.Context, db *database, apps [2]*app.App, scope yakor.Scope, gen *mnemosGen, sample []mnemosQ, n, turns int) (off, on mnemosTurnStats, err error) {
	rng := rand.New(rand.NewPCG(uint64(n), 17))
	if scope, err = mnemosThread(ctx, db, apps[1].History, scope, rng, n); err != nil {
		return off, on, err
	}
	var got [2]mnemosTurnSamples
	warm := min(10, turns)
	for i := range warm + turns {
		order := [2]int{0, 1}
		if i%2 == 1 {
			order = [2]int{1, 0}
		}
		for _, k := range order {
			a := gen.ask(rng, sample, rng.IntN(3))
			e := apps[k].Engine
			out, err := e.Send(ctx, scope, turn.Input{Content: a.text}, func(turn.Event) error { return nil })
			if err != nil {
				return off, on, err
			}
			if i < warm {
				continue
			}
			tr, err := e.FindTrace(ctx, scope, out.TurnID)
			if err != nil {
				return off, on, err
			}
			if tr.MemoryError != "" {
				return off, on, fmt.Errorf("bench mnemos: turn %s left memory out: %s", tr.ID, tr.MemoryError)
			}
			got[k].add(tr)
		}
	}
	return got[0].stats(), got[1].stats(), nil
}

// mnemosThread makes a thread of scope's user holding n messages of
// benchText, imported 10,000 at a time.
func mnemosThread(ctx context.Context, db *database, hist *history.Store, scope yakor.Scope, rng *rand.Rand, n int) (yakor.Scope, error) {
	th, err := hist.CreateThread(ctx, scope, history.ThreadCreate{Title: fmt.Sprintf("bench mnemos %d", n)})
	if err != nil {
		return scope, err
	}
	scope = scope.WithThread(th.ID)
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
			return scope, err
		}
	}
	_, err = db.Owner.Exec(ctx, `ANALYZE messages`)
	return scope, err
}

// mnemosTurnSamples gathers the traces of one app's turns.
type mnemosTurnSamples struct {
	mem, noSearch, rec, tot, prompt samples
	memChars, searches              int
}

func (s *mnemosTurnSamples) add(tr turn.Trace) {
	s.mem.add(tr.Timings["memory"])
	searched := 0.0
	for _, st := range tr.Searches {
		searched += st.TookMS
	}
	s.noSearch.add(tr.Timings["memory"] - searched)
	s.rec.add(tr.Timings["memory_recall"])
	s.tot.add(tr.Timings["total"])
	s.prompt.add(float64(tr.PromptChars))
	s.searches += len(tr.Searches)
	for _, l := range tr.Layers {
		if l.Name == turn.LayerMemory {
			s.memChars += l.Chars
		}
	}
}

func (s *mnemosTurnSamples) stats() mnemosTurnStats {
	return mnemosTurnStats{
		N: len(s.mem), MemoryP50: s.mem.pct(50), MemoryP99: s.mem.pct(99), NoSearchP50: s.noSearch.pct(50), NoSearchP99: s.noSearch.pct(99),
		RecallP50: s.rec.pct(50), RecallP99: s.rec.pct(99), TotalP50: s.tot.pct(50), PromptCharsP50: int(s.prompt.mid()),
		MemoryChars: float64(s.memChars) / float64(len(s.mem)), Searches: s.searches,
	}
}
