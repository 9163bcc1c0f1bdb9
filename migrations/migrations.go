// Package migrations holds Yakor's database schema as numbered SQL files,
// embedded in the binary. postgres.Migrate applies them with goose; the
// server applies them on start, and so do `yakor migrate` and the tests.
//
// Every table is keyed by tenant_id first (and carries user_id where the row
// belongs to one user), so that no query needs another tenant's rows and the
// tables can later be distributed by tenant.
package migrations

import "embed"

// FS holds the migration files, named NNNNN_what.sql.
//
//go:embed *.sql
var FS embed.FS
