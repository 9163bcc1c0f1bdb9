package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"yakor"
	"yakor/lifecycle"
	"yakor/postgres"
)

// runExport prints all of a user's data as JSON, as GET
// /api/v1/users/{id}/export does: the operator's way to answer a request
// for a person's data.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("export", args, stdout, stderr)
	tenant := fs.String("tenant", "local", "the tenant: its name or id")
	user := fs.String("user", "", "the user: Yakor's id for them, or the app's (X-Yakor-User)")
	_, _, db, err := openDatabase(ctx, fs, args, stderr, getenv)
	if err != nil {
		return err
	}
	defer db.Close()
	if *user == "" {
		return errors.New("export: name the user with --user")
	}
	var scope yakor.Scope
	err = db.Owner.QueryRow(ctx, `SELECT t.id::text, u.id::text FROM tenants t JOIN users u ON u.tenant_id = t.id
WHERE (t.id::text = $1 OR t.name = $1) AND (u.id::text = $2 OR u.external_id = $2) ORDER BY t.created_at LIMIT 1`, *tenant, *user).Scan(&scope.TenantID, &scope.UserID)
	if err != nil {
		return postgres.NotFound("export", err, fmt.Errorf("export: no user %q in tenant %q", *user, *tenant))
	}
	out, err := lifecycle.New(db.Owner).ExportUser(ctx, scope, scope.UserID)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
