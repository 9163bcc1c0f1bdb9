package main

import (
	"context"
	"fmt"
	"io"

	"yakor/app"
	"yakor/words"
)

// runServe serves until ctx ends (SIGINT, SIGTERM), then shuts down in
// order within the shutdown timeout.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, log, err := parseSettings(newFlagSet("serve", args, stdout, stderr), args, stderr, getenv)
	if err != nil {
		return err
	}
	log.Info("starting yakor", cfg.LogAttrs()...)
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		a.Close(sctx)
	}()
	if cfg.Chat.Provider == app.ProviderOffline {
		log.Warn("no language model is configured: replies come from the offline model; set OPENAI_BASE_URL and YAKOR_CHAT_MODEL to use a real one")
	}
	// The related-words table and the word vectors history search uses are
	// parsed now, beside the start, not in the first search.
	go func() { words.Related(""); words.Meaning("") }()
	if err := a.Start(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "yakor listening on http://%s\n", a.Addr())
	select {
	case <-ctx.Done():
		log.Info("shutting down", "grace", cfg.ShutdownTimeout)
		return nil
	case err := <-a.Served():
		return fmt.Errorf("http server: %w", err)
	}
}
