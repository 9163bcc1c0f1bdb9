package migrations_test

import (
	"slices"
	"testing"

	"yakor/migrations"
)

// TestExtensions: the extensions a Citus cluster's nodes get are those the
// migrations create, each once.
func TestExtensions(t *testing.T) {
	if got, want := migrations.Extensions(), []string{"vector", "pg_trgm", "btree_gin"}; !slices.Equal(got, want) {
		t.Errorf("Extensions() = %v, want %v", got, want)
	}
}
