package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrNoBinaries is returned by [Start] when no PostgreSQL server binaries
// (postgres and initdb, version 15 or newer) are found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries not found: run scripts/setup.sh or set YAKOR_PG_BIN")

// debianPGRoot is where Debian installs one bin/ folder per major version.
const debianPGRoot = "/usr/lib/postgresql"

// minMajor is the oldest PostgreSQL major version Yakor supports.
const minMajor = 15

// findBinDir picks the folder holding postgres and initdb. An explicit folder
// must hold both. Otherwise it takes <root>/<N>/bin with N >= minMajor,
// preferring N == want (the data folder's PG_VERSION) and else the newest,
// then `pg_config --bindir`, then the folder of postgres on PATH.
func findBinDir(explicit, root, want string) (string, error) {
	if explicit != "" {
		if !hasServerBinaries(explicit) {
			return "", fmt.Errorf("no postgres and initdb in %s: %w", explicit, ErrNoBinaries)
		}
		return explicit, nil
	}
	if dir := newestVersionDir(root, want); dir != "" {
		return dir, nil
	}
	if pgConfig, err := exec.LookPath("pg_config"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output()
		cancel()
		if dir := strings.TrimSpace(string(out)); err == nil && hasServerBinaries(dir) && binaryMajor(dir) >= minMajor {
			return dir, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		if dir := filepath.Dir(p); hasServerBinaries(dir) && binaryMajor(dir) >= minMajor {
			abs, err := filepath.Abs(dir)
			if err == nil {
				return abs, nil
			}
		}
	}
	return "", ErrNoBinaries
}

// newestVersionDir returns <root>/<want>/bin if it qualifies, else the
// qualifying <root>/<N>/bin with the highest N, else "".
func newestVersionDir(root, want string) string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	best, bestN := "", -1
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n < minMajor {
			continue
		}
		dir := filepath.Join(root, e.Name(), "bin")
		if !hasServerBinaries(dir) {
			continue
		}
		if e.Name() == want {
			return dir
		}
		if n > bestN {
			best, bestN = dir, n
		}
	}
	return best
}

// hasServerBinaries reports whether dir holds executable postgres and initdb.
func hasServerBinaries(dir string) bool {
	for _, name := range []string{"postgres", "initdb"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// binaryMajor returns the major version reported by `postgres -V` in dir, or
// 0 if it cannot be told.
func binaryMajor(dir string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(dir, "postgres"), "-V").Output()
	if err != nil {
		return 0
	}
	// "postgres (PostgreSQL) 15.8 (Debian 15.8-0+deb12u1)"
	m := regexp.MustCompile(`\(PostgreSQL\) (\d+)`).FindSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// dataVersion returns the major version in <pgdata>/PG_VERSION, or "".
func dataVersion(pgdata string) string {
	b, err := os.ReadFile(filepath.Join(pgdata, "PG_VERSION"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
