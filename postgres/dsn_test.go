package postgres_test

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"yakor/postgres"
)

// TestDSN: a connection string made by DSN parses back to what it was made
// of, whatever the values hold.
func TestDSN(t *testing.T) {
	for _, tc := range []struct{ host, user, db string }{
		{"/tmp/yakor/run", "postgres", "yakor"},
		{"/tmp/a folder/run", "o'brien", `we\ird db`},
		{"db.example", "yakor_service", ""},
	} {
		cfg, err := pgx.ParseConfig(postgres.DSN(tc.host, 5433, tc.user, tc.db))
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if cfg.Host != tc.host || cfg.Port != 5433 || cfg.User != tc.user || cfg.Database != tc.db {
			t.Errorf("%+v parsed back as host %q port %d user %q db %q", tc, cfg.Host, cfg.Port, cfg.User, cfg.Database)
		}
	}
}
