package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/pgtest"
)

// TestMnemosReembed: `yakor mnemos reembed` moves entries of another
// embedding model into the configured one's space, and a second run has
// nothing left to do.
func TestMnemosReembed(t *testing.T) {
	url, _ := pgtest.NewURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const setup = `
WITH t AS (INSERT INTO tenants (id, name) VALUES (gen_random_uuid(), 't') RETURNING id),
     s AS (INSERT INTO embed_spaces (provider, model, dims) VALUES ('openai', 'old', 3) RETURNING id)
INSERT INTO experiences (tenant_id, level, question, answer, source, space_id, embedding, visibility)
SELECT t.id, 1, 'How much is delivery to Kazan?', '900.', 'manual', s.id, '[1,0,0]', 'shared' FROM t, s`
	if _, err := conn.Exec(ctx, setup); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"re-embedded 1 experiences and 0 research topics with offline:offline", "re-embedded 0 experiences"} {
		var stdout, stderr bytes.Buffer
		if err := run(ctx, []string{"mnemos", "reembed", "--database-url", url, "--log-level", "warn"}, &stdout, &stderr, func(string) string { return "" }); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		if !strings.Contains(stdout.String(), want) {
			t.Fatalf("output %q, want %q", stdout.String(), want)
		}
	}
	var model string
	if err := conn.QueryRow(ctx, `SELECT s.model FROM experiences e JOIN embed_spaces s ON s.id = e.space_id`).Scan(&model); err != nil || model != "offline" {
		t.Fatalf("space after reembed: %q %v", model, err)
	}
}
