package cluster

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Why a data folder cannot take writes, in a *DirError.
var (
	ErrMissing  = errors.New("does not exist")
	ErrReadOnly = errors.New("is on a read-only file system")
	ErrFull     = errors.New("is on a full disk")
)

// DirError says why a data folder cannot take writes.
type DirError struct {
	Dir  string
	Free uint64 // bytes free for the server's user
	Err  error  // ErrMissing, ErrReadOnly, ErrFull or another cause
}

// Error names the folder and the cause.
func (e *DirError) Error() string { return fmt.Sprintf("the data folder %s %v", e.Dir, e.Err) }

// Unwrap returns the cause.
func (e *DirError) Unwrap() error { return e.Err }

// minFree is the free space under which a data folder counts as full: a
// database that cannot add a few pages can store nothing.
const minFree = 1 << 20

// CheckDir reports why the data folder dir cannot take writes, as a
// *DirError: it is missing (ErrMissing: say, its disk is not mounted), its
// disk has less than 1 MiB free for an unprivileged user (ErrFull), or a
// file cannot be made in it (ErrReadOnly for a read-only file system, else
// the cause). It returns nil when it can. It makes and removes one empty
// file.
func CheckDir(dir string) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = ErrMissing
		}
		return &DirError{Dir: dir, Err: err}
	}
	free := st.Bavail * uint64(st.Bsize)
	if free < minFree {
		return &DirError{Dir: dir, Free: free, Err: ErrFull}
	}
	f, err := os.CreateTemp(dir, ".yakor-write-check-*")
	switch {
	case errors.Is(err, syscall.EROFS):
		return &DirError{Dir: dir, Free: free, Err: ErrReadOnly}
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return &DirError{Dir: dir, Free: free, Err: ErrFull}
	case err != nil:
		return &DirError{Dir: dir, Free: free, Err: err}
	}
	name := f.Name()
	_ = f.Close()
	if err := os.Remove(name); err != nil {
		return &DirError{Dir: dir, Free: free, Err: err}
	}
	return nil
}
