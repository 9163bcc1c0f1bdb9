package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// account is the unprivileged user the server runs as when the caller is
// root. A nil *account means "run as the calling user".
type account struct {
	name   string
	uid    uint32
	gid    uint32
	groups []uint32
}

// lookupAccount returns the run-as account for name when the process runs
// as root, and nil otherwise.
func lookupAccount(name string) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("look up run-as user %q (PostgreSQL refuses to run as root; create that user or set another): %w", name, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("look up run-as user %q: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("look up run-as user %q: gid %q: %w", name, u.Gid, err)
	}
	if uid == 0 {
		return nil, fmt.Errorf("run-as user %q is root: PostgreSQL refuses to run as root", name)
	}
	a := &account{name: name, uid: uint32(uid), gid: uint32(gid)}
	ids, err := u.GroupIds()
	if err != nil {
		ids = nil // supplementary groups are optional
	}
	for _, s := range ids {
		if g, err := strconv.ParseUint(s, 10, 32); err == nil {
			a.groups = append(a.groups, uint32(g))
		}
	}
	return a, nil
}

// sysProcAttr returns process attributes that run a child as a (or as the
// caller when a is nil).
func (a *account) sysProcAttr() *syscall.SysProcAttr {
	if a == nil {
		return &syscall.SysProcAttr{}
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: a.groups}}
}

// traverseFix returns "" if a may enter a directory with info fi, else the
// chmod argument that would let it.
func (a *account) traverseFix(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	perm := fi.Mode().Perm()
	switch {
	case st.Uid == a.uid:
		if perm&0o100 == 0 {
			return "u+x"
		}
	case st.Gid == a.gid || slices.Contains(a.groups, st.Gid):
		if perm&0o010 == 0 {
			return "g+x"
		}
	default:
		if perm&0o001 == 0 {
			return "o+x"
		}
	}
	return ""
}

// checkParents verifies that a can traverse every existing parent of path.
// Parents that do not exist yet are skipped: they are created 0755.
func (a *account) checkParents(path string) error {
	var parents []string
	for p := filepath.Dir(path); ; p = filepath.Dir(p) {
		parents = append(parents, p)
		if p == filepath.Dir(p) {
			break
		}
	}
	slices.Reverse(parents)
	for _, p := range parents {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("check parent directory %s: %w", p, err)
		}
		if fix := a.traverseFix(fi); fix != "" {
			return fmt.Errorf("directory %s (mode %04o) is not traversable by user %q, who runs PostgreSQL: "+
				"run \"chmod %s %s\" or put the data folder elsewhere", p, fi.Mode().Perm(), a.name, fix, p)
		}
	}
	return nil
}

// prepareDirs creates the data folder layout, checks that the run-as user
// can reach it and hands pg/ and run/ over to that user.
func prepareDirs(lay layout, a *account, log *slog.Logger) error {
	if a != nil {
		if err := a.checkParents(lay.dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(lay.dir, 0o755); err != nil {
		return fmt.Errorf("create data folder: %w", err)
	}
	for _, d := range []string{lay.pgdata, lay.run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
		// PostgreSQL insists on 0700 (or 0750) for PGDATA.
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("chmod %s: %w", d, err)
		}
	}
	if a == nil {
		return nil
	}
	// Parents made by MkdirAll under a strict umask must be checked too.
	if err := a.checkParents(lay.dir); err != nil {
		return err
	}
	fi, err := os.Stat(lay.dir)
	if err != nil {
		return fmt.Errorf("stat data folder: %w", err)
	}
	if a.traverseFix(fi) != "" {
		mode := fi.Mode().Perm() | 0o011
		log.Info("making data folder traversable for the postgres user", "mode", fmt.Sprintf("%04o", mode))
		if err := os.Chmod(lay.dir, mode); err != nil {
			return fmt.Errorf("chmod data folder: %w", err)
		}
	}
	for _, d := range []string{lay.pgdata, lay.run} {
		if err := chownTree(d, a.uid, a.gid); err != nil {
			return err
		}
	}
	return nil
}

// chownTree gives root and everything below it to uid:gid, touching only
// entries that are owned by someone else.
func chownTree(root string, uid, gid uint32) error {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == uid && st.Gid == gid {
			return nil
		}
		return os.Lchown(p, int(uid), int(gid))
	})
	if err != nil {
		return fmt.Errorf("chown %s: %w", root, err)
	}
	return nil
}
