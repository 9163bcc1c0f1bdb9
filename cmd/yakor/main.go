// Command yakor is Yakor's one binary and its composition root: it parses
// the configuration once, builds the database pool, the models, the turn
// engine and the HTTP server, and shuts them down in order.
//
//	yakor serve [--addr 127.0.0.1:8080] [--data-dir DIR]   run the service
//	yakor migrate                                          apply the schema and exit
//	yakor db start|stop [--data-dir DIR]                   manage a detached private cluster
//	yakor keys create|list|revoke                          API keys (shown once, stored hashed)
//	yakor likbez run                                       run the research job now
//	yakor mnemos reembed [--all]                           re-embed long-term memory after a model change
//	yakor bench all [--quick]                              measure everything in docs/benchmarks.md and write it
//	yakor bench turn [--messages 1000,100000]              measure the memory layer's cost per turn
//	yakor bench api [--turns 300]                          measure the OpenAI-compatible path's cost over the native API
//	yakor bench load [--conversations 200 --turns 50]      load a served yakor over HTTP; --restart-postgres midway
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `yakor: dialogue memory for LLM assistants

usage:
  yakor serve [flags]        run the HTTP service (API on /api/v1)
  yakor migrate [flags]      apply the database migrations and exit
  yakor db start|stop        run a detached private PostgreSQL in --data-dir (for tests and tools)
  yakor keys create|list|revoke  make (shown once), list and revoke API keys
  yakor likbez run           run the research job now (study the research topics that are due)
  yakor mnemos reembed       re-embed experiences and research topics with the configured embedding model
  yakor bench all [flags]    run every benchmark and write docs/benchmarks.md (+ .json, prompt-size.png)
  yakor bench turn [flags]   measure the per-turn cost of the memory layer
  yakor bench api [flags]    measure what the OpenAI-compatible endpoint adds to a turn over the native API
  yakor bench load [flags]   run many conversations at once against a served yakor, checking nothing is lost (--restart-postgres: with a database restart midway)
  yakor help                 this text; 'yakor serve -h' lists every setting
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "yakor:", err)
		}
		os.Exit(1)
	}
}

// run is the whole program; tests call it with their own arguments,
// environment and outputs.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, args, stdout, stderr, getenv)
	case "migrate":
		return runMigrate(ctx, args, stderr, getenv)
	case "db":
		return runDB(ctx, args, stdout, stderr, getenv)
	case "keys":
		return runKeys(ctx, args, stdout, stderr, getenv)
	case "likbez":
		return runLikbez(ctx, args, stdout, stderr, getenv)
	case "mnemos":
		return runMnemos(ctx, args, stdout, stderr, getenv)
	case "bench":
		return runBench(ctx, args, stdout, stderr, getenv)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("yakor "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
