package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"yakor/likbez"
	"yakor/mnemos"
)

// runLikbez runs the research job now, in this process:
//
//	yakor likbez run   study the research topics that are due, print what was done
func runLikbez(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 || args[0] != "run" {
		return errors.New("likbez: say run")
	}
	cfg, log, db, err := openCommand(ctx, newFlagSet("likbez run", stderr), args[1:], stderr, getenv)
	if err != nil {
		return err
	}
	defer db.close(log)
	memory := mnemos.NewStore(db.svc, mnemos.NewSpace(db.pool, embedModel(cfg, log), log), mnemos.Config{}, log, nil)
	r, err := newResearch(db.pool, mnemos.NewTopicQueue(db.pool, db.svc), cfg, memory, log, nil).WithTenantDB(db.svc).Run(ctx, likbez.TriggerCLI, nil)
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
