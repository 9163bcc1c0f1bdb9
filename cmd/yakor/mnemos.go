package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"yakor/mnemos"
)

// runMnemos runs long-term memory's maintenance commands:
//
//	yakor mnemos reembed [--all]   move experiences and topics into the configured embedding model's space
func runMnemos(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 || args[0] != "reembed" {
		return errors.New("mnemos: say reembed")
	}
	fs := newFlagSet("mnemos reembed", stderr)
	all := fs.Bool("all", false, "re-embed every row, also those already in the model's space")
	cfg, log, db, err := openCommand(ctx, fs, args[1:], stderr, getenv)
	if err != nil {
		return err
	}
	defer db.close(log)
	space := mnemos.NewSpace(db.pool, embedModel(cfg, log), log)
	r, err := mnemos.NewStore(db.pool, space, mnemos.Config{}, log, nil).Reembed(ctx, *all)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "re-embedded %d experiences and %d research topics with %s\n", r.Experiences, r.Topics, space.Name())
	if cfg.SearchSemantic {
		fmt.Fprintln(stdout, "message embeddings for history search are rebuilt by the embedding jobs as threads are used")
	}
	return nil
}
