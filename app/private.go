package app

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"yakor"
	"yakor/postgres/cluster"
)

// current returns the private cluster running now; nil when Yakor runs
// none.
func (db *Database) current() *cluster.Cluster {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.cluster
}

// diagnose says why the database cannot serve when the private cluster's
// data folder dir cannot take writes: its disk full, read-only, or missing
// (EUNAVAILABLE, naming the folder); nil when it can, or for dir "" (no
// private cluster).
func diagnose(dir string) error {
	if dir == "" {
		return nil
	}
	var de *cluster.DirError
	if !errors.As(cluster.CheckDir(dir), &de) {
		return nil
	}
	switch {
	case errors.Is(de, cluster.ErrFull):
		return yakor.Errorf(yakor.EUNAVAILABLE, "the database's disk is full: its data folder %s has %d KiB free; it stores again once space is freed there", de.Dir, de.Free>>10)
	case errors.Is(de, cluster.ErrReadOnly):
		return yakor.Errorf(yakor.EUNAVAILABLE, "the database cannot write: its data folder %s is on a read-only file system; it stores again once that is writable", de.Dir)
	case errors.Is(de, cluster.ErrMissing):
		return yakor.Errorf(yakor.EUNAVAILABLE, "the database cannot write: its data folder %s does not exist (is its disk mounted?)", de.Dir)
	}
	return yakor.Errorf(yakor.EUNAVAILABLE, "the database cannot write: %v", de)
}

// diagnosis caches diagnose for a second, so that a server answering many
// requests while its database is down checks its folder once a second.
type diagnosis struct {
	dir  string
	mu   sync.Mutex
	at   time.Time
	last error
}

// get returns diagnose(dir), checked at most once a second.
func (d *diagnosis) get() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if time.Since(d.at) >= time.Second {
		d.last, d.at = diagnose(d.dir), time.Now()
	}
	return d.last
}

// watch keeps the private cluster running while Yakor serves: when its
// PostgreSQL stops on its own (a disk that turned read-only makes it stop),
// watch logs why and starts it again, never making a new cluster, once the
// data folder can take writes. Until then requests answer 503 saying why
// (diagnose). Close ends the watch.
func (db *Database) watch(log *slog.Logger) {
	if db.current() == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	db.stopWatch = func() {
		cancel()
		<-done
	}
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-db.current().Done():
			}
			why := "see postgres.log in the data folder"
			if d := diagnose(db.private.Dir); d != nil {
				why = yakor.ErrorMessage(d)
			}
			log.Error("the private PostgreSQL stopped; Yakor starts it again once its data folder can take writes", "why", why)
			if !db.restart(ctx, log) {
				return
			}
		}
	}()
}

// restart starts the private cluster again once its data folder can take
// writes, trying again with backoff; it reports false when ctx ended first.
func (db *Database) restart(ctx context.Context, log *slog.Logger) bool {
	opts := db.private
	opts.NoInit = true
	last := ""
	for wait := time.Second; ; wait = min(2*wait, 10*time.Second) {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		err := cluster.CheckDir(opts.Dir)
		if err == nil {
			var cl *cluster.Cluster
			if cl, err = cluster.Start(ctx, opts); err == nil {
				db.mu.Lock()
				old := db.cluster
				db.cluster = cl
				db.mu.Unlock()
				// The old server has exited: stopping it only hands its
				// share of the folder's ownership to the new one.
				_ = old.Stop(ctx)
				log.Info("the private PostgreSQL runs again", "pid", cl.PID())
				return true
			}
		}
		if err.Error() != last {
			log.Warn("the private PostgreSQL cannot start again yet", "err", err)
			last = err.Error()
		}
	}
}
