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

func TestStart_ParentNotTraversable(t *testing.T) {
	pgtest.RequireRoot(t, "the server runs as another user only then")
	t.Parallel()
	locked := filepath.Join(filepath.Dir(pgtest.DataDir(t)), "locked")
	if err := os.Mkdir(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := cluster.Start(context.Background(), testOptions(t, filepath.Join(locked, "data")))
	if err == nil {
		t.Fatal("Start succeeded under a non-traversable parent")
	}
	for _, want := range []string{locked, "not traversable", `chmod o+x`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(locked, "data")); !os.IsNotExist(err) {
		t.Errorf("data folder created despite the error: %v", err)
	}
}

func TestStart_InvalidOptions(t *testing.T) {
	t.Parallel()
	base := pgtest.DataDir(t)
	tests := []struct {
		name string
		edit func(*cluster.Options)
		want string
	}{
		{"NoDir", func(o *cluster.Options) { o.Dir = "" }, "Dir is required"},
		{"SocketPathTooLong", func(o *cluster.Options) { o.Dir = filepath.Join(base, strings.Repeat("x", 100)) }, "socket path"},
		{"CommaInDir", func(o *cluster.Options) { o.Dir = filepath.Join(base, "a,b") }, "must not contain commas"},
		{"OwnedSetting", func(o *cluster.Options) { o.Settings["listen_addresses"] = "*" }, "managed by the cluster package"},
		{"BadPort", func(o *cluster.Options) { o.Port = 70000 }, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions(t, base)
			tt.edit(&opts)
			_, err := cluster.Start(context.Background(), opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestFindBinDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(version string, names ...string) string {
		t.Helper()
		dir := filepath.Join(root, version, "bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	mk("14", "postgres", "initdb")
	v15 := mk("15", "postgres", "initdb")
	v16 := mk("16", "postgres", "initdb")
	mk("17", "postgres") // no initdb
	mk("18")

	tests := []struct {
		name, explicit, want, wantDir string
		wantErr                       bool
	}{
		{name: "Newest", wantDir: v16},
		{name: "DataVersion", want: "15", wantDir: v15},
		{name: "DataVersionTooOld", want: "14", wantDir: v16},
		{name: "Explicit", explicit: v15, wantDir: v15},
		{name: "ExplicitMissing", explicit: filepath.Join(root, "17", "bin"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cluster.FindBinDir(tt.explicit, root, tt.want)
			if tt.wantErr {
				if !errors.Is(err, cluster.ErrNoBinaries) {
					t.Errorf("err = %v, want ErrNoBinaries", err)
				}
				return
			}
			if err != nil || got != tt.wantDir {
				t.Errorf("FindBinDir = %q, %v; want %q", got, err, tt.wantDir)
			}
		})
	}
}
