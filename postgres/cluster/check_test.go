package cluster_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"yakor/postgres/cluster"
	"yakor/postgres/pgtest"
)

// TestCheckDir: a folder that takes writes passes and keeps nothing of
// the check; a missing one says so.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	if err := cluster.CheckDir(dir); err != nil {
		t.Fatalf("CheckDir(%s) = %v", dir, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the check left %v", entries)
	}
	missing := filepath.Join(dir, "gone")
	var de *cluster.DirError
	if err := cluster.CheckDir(missing); !errors.As(err, &de) || !errors.Is(err, cluster.ErrMissing) || de.Dir != missing {
		t.Fatalf("CheckDir(missing) = %v", err)
	}
}

// TestStart_NoInit: with NoInit, a folder holding no cluster is not given
// a new one (a restart into a disk that is not mounted, say).
func TestStart_NoInit(t *testing.T) {
	dir := pgtest.DataDir(t)
	opts := testOptions(t, dir)
	opts.NoInit = true
	_, err := cluster.Start(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "not making one") {
		t.Fatalf("Start with NoInit on an empty folder: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the folder was made: %v", err)
	}
}
