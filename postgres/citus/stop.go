package citus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"yakor/postgres/cluster"
)

// Stop shuts every node down, side by side, as cluster.Cluster.Stop does.
// It returns the nodes' errors joined.
func (c *Cluster) Stop(ctx context.Context) error {
	c.mu.Lock()
	nodes := append([]*cluster.Cluster(nil), c.nodes...)
	c.mu.Unlock()
	err := parallel(len(nodes), func(i int) error {
		if err := nodes[i].Stop(ctx); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(nodeDir(c.opts.Dir, i)), err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("citus: stop: %w", err)
	}
	return nil
}

// StopWorker stops worker i (1-based), as a worker that goes down would:
// the coordinator keeps it registered, and its shards are unreachable until
// [Cluster.StartWorker].
func (c *Cluster) StopWorker(ctx context.Context, i int) error {
	if i < 1 || i > c.opts.Workers {
		return fmt.Errorf("citus: stop worker %d: no such worker (1..%d)", i, c.opts.Workers)
	}
	if err := c.node(i).Stop(ctx); err != nil {
		return fmt.Errorf("citus: stop worker %d: %w", i, err)
	}
	return nil
}

// StartWorker starts worker i (1-based) again after [Cluster.StopWorker],
// with the settings it had. Its data folder must hold its cluster.
func (c *Cluster) StartWorker(ctx context.Context, i int) error {
	if i < 1 || i > c.opts.Workers {
		return fmt.Errorf("citus: start worker %d: no such worker (1..%d)", i, c.opts.Workers)
	}
	no := c.opts.nodeOptions(i)
	no.NoInit = true
	n, err := cluster.Start(ctx, no)
	if err != nil {
		return fmt.Errorf("citus: start worker %d: %w", i, err)
	}
	c.mu.Lock()
	c.nodes[i] = n
	c.mu.Unlock()
	return nil
}

// StopDir stops every node of the Citus cluster in dir (the coordinator and
// each worker<N> folder), found through their postmaster.pid files as
// cluster.StopDir does: nodes that are not running are skipped.
func StopDir(ctx context.Context, dir string) error {
	dirs, err := nodeDirs(dir)
	if err != nil {
		return fmt.Errorf("citus: stop: %w", err)
	}
	err = parallel(len(dirs), func(i int) error {
		if err := cluster.StopDir(ctx, dirs[i]); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(dirs[i]), err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("citus: stop: %w", err)
	}
	return nil
}

// nodeDirs lists the node folders in dir: the coordinator's and every
// worker<N>, whatever number of workers the cluster was started with.
func nodeDirs(dir string) ([]string, error) {
	if !IsLayout(dir) {
		return nil, fmt.Errorf("%s holds no Citus cluster (no %s folder)", dir, CoordinatorDir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	dirs := []string{filepath.Join(dir, CoordinatorDir)}
	for _, e := range entries {
		n, ok := strings.CutPrefix(e.Name(), workerPrefix)
		if _, err := strconv.Atoi(n); e.IsDir() && ok && err == nil {
			dirs = append(dirs, filepath.Join(dir, e.Name()))
		}
	}
	return dirs, nil
}

// stopQuietly stops a node after a failed start, logging what goes wrong.
func stopQuietly(n *cluster.Cluster, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := n.Stop(ctx); err != nil {
		log.Error("stop after failed start", "err", err)
	}
}

// parallel runs f(0) .. f(n-1) side by side (a node each) and joins their
// errors.
func parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
