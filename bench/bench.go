// Package bench holds Yakor's benchmarks, the commands behind `yakor bench
// …`, and the report `yakor bench all` writes (docs/benchmarks.md, its
// JSON and the prompt-size chart). Every benchmark builds Yakor through
// app.New, the composition root yakor serve uses, so what it measures is
// the graph production runs, with the settings the benchmark names; the
// load benchmark serves the real binary as a subprocess.
//
// The benchmarks run on a database of their own: a private PostgreSQL
// cluster in the bench folder (--bench-dir, ./.yakor-bench) unless
// DATABASE_URL names a server; big corpora are loaded with COPY into
// sibling databases on that server (copy.go, sibling.go) and kept for the
// next run. The package owns no table: it creates tenants of its own in
// those databases and deletes them afterwards.
package bench

import (
	"context"
	"io"
)

// Command is one benchmark: `yakor bench <Name> <Args>`.
type Command struct {
	Name    string
	Args    string // what follows the name in its usage line
	Summary string
	// Run runs the benchmark with its arguments (after its name). It
	// returns flag.ErrHelp when -h or --help asked for its usage, which it
	// wrote to stdout.
	Run func(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error
}

// Commands is every benchmark, in the order `yakor bench -h` lists them.
func Commands() []Command {
	return []Command{
		{Name: "all", Args: "[--quick] [flags]", Summary: "run every benchmark and write docs/benchmarks.md (+ .json, prompt-size.png)", Run: runBenchAll},
		{Name: "turn", Args: "[--messages 1000,100000] [flags]", Summary: "the memory layer's cost per turn", Run: runBenchTurn},
		{Name: "api", Args: "[--turns 300] [flags]", Summary: "what the OpenAI-compatible endpoint adds to a turn over the native API", Run: runBenchAPI},
		{Name: "upkeep", Args: "[--turns 200] [flags]", Summary: "what memory upkeep costs next to the conversation: helper calls and characters per turn", Run: runBenchUpkeep},
		{Name: "load", Args: "[--conversations 200 --turns 50] [flags]", Summary: "many conversations at once against a served yakor, checking nothing is lost", Run: runBenchLoad},
		{Name: "search", Args: "[flags]", Summary: "history search latency over millions of messages", Run: runBenchSearch},
		{Name: "prompt", Args: "[flags]", Summary: "prompt size against turn number", Run: runBenchPrompt},
		{Name: "locomo", Args: "[flags]", Summary: "LoCoMo evidence recall", Run: runBenchLocomo},
		{Name: "locomo-loss", Args: "[flags]", Summary: "which memory layer holds each LoCoMo question's evidence", Run: runBenchLocomoLoss},
		{Name: "mnemos", Args: "[flags]", Summary: "long-term memory's recall and its cost per turn", Run: runBenchMnemos},
	}
}
