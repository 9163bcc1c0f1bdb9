// Command yakor is Yakor's one binary: flags in, app out. It parses the
// settings once (app.Parse) and hands them to app.New, the composition
// root; the benchmarks live in package bench.
//
//	yakor serve [flags]              run the service
//	yakor help [COMMAND]             every command, or one command's usage
//
// `yakor help` lists the rest; every command and group answers -h.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"yakor/app"
	"yakor/bench"
)

// runFunc runs a command with its arguments (after its name).
type runFunc func(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error

// command is one command of the binary, or a group of them (sub).
type command struct {
	name    string
	args    string // what follows the name in its usage line
	summary string
	run     runFunc
	sub     []command
}

// commands is every command, in the order `yakor help` lists them.
func commands() []command {
	return []command{
		{name: "serve", args: "[flags]", summary: "run the HTTP service: the web chat on /, Yakor's API on /api/v1, the OpenAI-compatible one on /v1", run: runServe},
		{name: "migrate", args: "[flags]", summary: "apply the database migrations and exit", run: runMigrate},
		{name: "db", summary: "a detached private PostgreSQL (or Citus cluster) in --data-dir, for tests and tools", sub: []command{
			{name: "start", args: "[--fast] [--citus [--citus-workers N] [--citus-shards N]] [flags]", summary: "start it and print its connection string", run: runDBStart},
			{name: "stop", args: "[flags]", summary: "stop it (never a folder a running yakor serve owns)", run: runDBStop},
		}},
		{name: "keys", summary: "API keys: made (the secret shown once), listed and revoked; stored hashed", sub: []command{
			{name: "create", args: "--tenant NAME [--user NAME] [--name LABEL] [--rate N] [--turns N] [--role admin|backend|user]", summary: "make a key and print its secret", run: runKeysCreate},
			{name: "list", args: "[--json]", summary: "list the keys", run: runKeysList},
			{name: "revoke", args: "ID", summary: "revoke a key", run: runKeysRevoke},
		}},
		{name: "export", args: "--tenant NAME|ID --user ID|APP-ID [flags]", summary: "print all of a user's data as JSON (threads with messages, facts, anchors, experiences, grades)", run: runExport},
		{name: "likbez", summary: "the research job", sub: []command{
			{name: "run", args: "[flags]", summary: "study the research topics that are due, now, and print what was done", run: runLikbez},
		}},
		{name: "mnemos", summary: "long-term memory's maintenance", sub: []command{
			{name: "reembed", args: "[--all] [flags]", summary: "re-embed experiences and research topics with the configured embedding model", run: runMnemosReembed},
		}},
		{name: "bench", summary: "benchmarks (docs/benchmarks.md is `yakor bench all`)", sub: benchCommands()},
		{name: "version", args: "[--json]", summary: "the module version and the commit this binary was built from", run: runVersion},
		{name: "help", args: "[COMMAND]", summary: "this list, or a command's usage"},
	}
}

// benchCommands are the benchmarks of package bench.
func benchCommands() []command {
	var cs []command
	for _, b := range bench.Commands() {
		cs = append(cs, command{name: b.Name, args: b.Args, summary: b.Summary, run: b.Run})
	}
	return cs
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "yakor:", err)
		os.Exit(1)
	}
}

// run is the whole program; tests call it with their own arguments,
// environment and outputs. It returns flag.ErrHelp when help was asked for
// and written, which is no failure.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	root := command{name: "yakor", summary: "dialogue memory for LLM assistants", sub: commands()}
	if len(args) == 0 {
		printGroup(stderr, root, nil)
		return errors.New("no command given: try yakor help")
	}
	if isHelp(args[0]) {
		// yakor help keys create is yakor keys create --help.
		args = append(args[1:], "--help")
		if len(args) == 1 {
			printGroup(stdout, root, nil)
			return flag.ErrHelp
		}
	}
	return dispatch(ctx, root, nil, args, stdout, stderr, getenv)
}

// dispatch finds args' command in group and runs it; path is the names
// above group.
func dispatch(ctx context.Context, group command, path, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 || isHelp(args[0]) {
		if len(args) == 0 {
			printGroup(stderr, group, path)
			return fmt.Errorf("%s: say which: %s", strings.Join(append(path, group.name), " "), names(group.sub))
		}
		printGroup(stdout, group, path)
		return flag.ErrHelp
	}
	for _, c := range group.sub {
		switch {
		case c.name != args[0]:
		case c.sub != nil:
			return dispatch(ctx, c, append(path, group.name), args[1:], stdout, stderr, getenv)
		case c.run != nil:
			return c.run(ctx, args[1:], stdout, stderr, getenv)
		}
	}
	return fmt.Errorf("%s: unknown command %q: say %s (yakor help lists them)", strings.Join(append(path, group.name), " "), args[0], names(group.sub))
}

// printGroup lists group's commands, and theirs, one line each.
func printGroup(w io.Writer, group command, path []string) {
	prefix := strings.TrimSpace(strings.Join(append(path, group.name), " "))
	fmt.Fprintf(w, "%s: %s\n\nusage:\n", prefix, group.summary)
	var list func(prefix string, cs []command)
	list = func(prefix string, cs []command) {
		for _, c := range cs {
			if c.sub != nil {
				list(prefix+" "+c.name, c.sub)
				continue
			}
			line := strings.TrimSpace(prefix + " " + c.name + " " + c.args)
			fmt.Fprintf(w, "  %-44s %s\n", line, c.summary)
		}
	}
	list(prefix, group.sub)
	fmt.Fprintf(w, "\nEvery command takes the settings too (yakor serve -h lists them, with their environment variables).\n")
}

func names(cs []command) string {
	var n []string
	for _, c := range cs {
		n = append(n, c.name)
	}
	return strings.Join(n, ", ")
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" || a == "help" }

// newFlagSet is a command's flags. Its usage goes to stdout when args ask
// for it (-h, --help), errors to stderr.
func newFlagSet(name string, args []string, stdout, stderr io.Writer) *flag.FlagSet {
	return app.NewFlagSet("yakor "+name, args, stdout, stderr)
}
