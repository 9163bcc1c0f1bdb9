package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// hbaConf allows the Unix socket only; there is no TCP listener at all.
const hbaConf = `# Written by Yakor: connections over the Unix socket only, no TCP.
# TYPE  DATABASE  USER  METHOD
local   all       all   trust
`

// initdb creates the cluster in lay.pgdata unless PG_VERSION is already
// there. It tries the C.UTF-8 locale, then en_US.UTF-8. noSync skips
// initdb's fsyncs (for tests running with fsync=off).
func initdb(ctx context.Context, bin string, lay layout, a *account, noSync bool, log *slog.Logger) error {
	if _, err := os.Stat(filepath.Join(lay.pgdata, "PG_VERSION")); err == nil {
		return nil
	}
	entries, err := os.ReadDir(lay.pgdata)
	if err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("initdb: %s is not empty but has no PG_VERSION (an interrupted initdb?): move it away and start again", lay.pgdata)
	}
	var errs []error
	for _, loc := range []string{"C.UTF-8", "en_US.UTF-8"} {
		args := []string{
			"-D", lay.pgdata,
			"-E", "UTF8",
			"--locale=" + loc,
			"-U", "postgres",
			"--auth-local=trust",
			"--auth-host=reject",
		}
		if noSync {
			args = append(args, "--no-sync")
		}
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), args...)
		cmd.Dir = lay.dir
		cmd.Env = childEnv()
		cmd.SysProcAttr = a.sysProcAttr()
		log.Info("running initdb", "pgdata", lay.pgdata, "locale", loc)
		out, err := cmd.CombinedOutput()
		if err == nil {
			return writeHBA(lay, a)
		}
		errs = append(errs, fmt.Errorf("locale %s: %w\n%s", loc, err, lastLines(out, 10)))
		if err := clearDir(lay.pgdata); err != nil {
			return fmt.Errorf("initdb: %w", err)
		}
	}
	return fmt.Errorf("initdb: %w", errors.Join(errs...))
}

// writeHBA replaces initdb's pg_hba.conf with the socket-only one.
func writeHBA(lay layout, a *account) error {
	p := filepath.Join(lay.pgdata, "pg_hba.conf")
	if err := os.WriteFile(p, []byte(hbaConf), 0o600); err != nil {
		return fmt.Errorf("write pg_hba.conf: %w", err)
	}
	if a != nil {
		if err := os.Chown(p, int(a.uid), int(a.gid)); err != nil {
			return fmt.Errorf("chown pg_hba.conf: %w", err)
		}
	}
	return nil
}

// clearDir removes everything inside dir, keeping dir itself.
func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("clear %s: %w", dir, err)
		}
	}
	return nil
}

// childEnv is the environment for initdb and postgres: the caller's, minus
// libpq/PostgreSQL variables that could point them elsewhere.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// lastLines returns at most n trailing lines of b.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(b, []byte("?"))), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
