package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"yakor/app"
	"yakor/likbez"
)

// runLikbez runs the research job now, in this process, and prints what
// was done.
func runLikbez(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	a, err := openApp(ctx, newFlagSet("likbez run", args, stdout, stderr), args, stderr, getenv)
	if err != nil {
		return err
	}
	defer a.DB.Close()
	r, err := a.Research.Run(ctx, likbez.TriggerCLI, nil)
	if err != nil {
		return err
	}
	out := json.NewEncoder(stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(r); err != nil {
		return fmt.Errorf("likbez: %w", err)
	}
	return nil
}

// runMnemosReembed moves experiences and research topics into the
// configured embedding model's space.
func runMnemosReembed(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("mnemos reembed", args, stdout, stderr)
	all := fs.Bool("all", false, "re-embed every row, also those already in the model's space")
	// Re-embedding goes over every tenant: as the tables' owner, which
	// row-level security does not hold to one.
	a, err := openApp(ctx, fs, args, stderr, getenv, app.WithOwnerAsTenant())
	if err != nil {
		return err
	}
	defer a.DB.Close()
	r, err := a.Memory.Reembed(ctx, *all)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "re-embedded %d experiences and %d research topics with %s\n", r.Experiences, r.Topics, a.Memory.Space().Name())
	if a.Config.SearchSemantic {
		fmt.Fprintln(stdout, "message embeddings for history search are rebuilt by the embedding jobs as threads are used")
	}
	return nil
}

// runVersion prints the build's version and commit.
func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("version", args, stdout, stderr)
	asJSON := fs.Bool("json", false, "as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	v := app.Version()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(v)
	}
	fmt.Fprintf(stdout, "yakor %s (%s)\n", v, v.Go)
	if v.Time != "" {
		fmt.Fprintf(stdout, "commit %s of %s\n", v.Revision, v.Time)
	}
	return nil
}
