package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os/exec"
	"strings"
	"testing"
)

// leaves are the paths of every runnable command ("keys create"…).
func leaves(prefix []string, cs []command) [][]string {
	var out [][]string
	for _, c := range cs {
		path := append(append([]string{}, prefix...), c.name)
		if c.sub != nil {
			out = append(out, leaves(path, c.sub)...)
		} else if c.run != nil {
			out = append(out, path)
		}
	}
	return out
}

// TestHelpEverywhere: every command and every group answers -h and
// --help with its usage on stdout and no failure (main exits 0 on
// flag.ErrHelp), and `yakor help` names every command.
func TestHelpEverywhere(t *testing.T) {
	var paths [][]string
	for _, c := range commands() {
		if c.sub != nil {
			paths = append(paths, []string{c.name})
		}
	}
	paths = append(paths, leaves(nil, commands())...)
	for _, path := range paths {
		for _, h := range []string{"-h", "--help"} {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append(append([]string{}, path...), h), &stdout, &stderr, func(string) string { return "" })
			if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stdout.String(), "usage") {
				t.Errorf("yakor %s %s: err %v, stdout %q, stderr %q", strings.Join(path, " "), h, err, stdout.String(), stderr.String())
			}
		}
	}
	var list bytes.Buffer
	if err := run(context.Background(), []string{"help"}, &list, &list, func(string) string { return "" }); !errors.Is(err, flag.ErrHelp) {
		t.Fatal(err)
	}
	for _, path := range leaves(nil, commands()) {
		if !strings.Contains(list.String(), "yakor "+strings.Join(path, " ")) {
			t.Errorf("yakor help does not list yakor %s:\n%s", strings.Join(path, " "), list.String())
		}
	}
	// The binary itself exits 0.
	for _, args := range [][]string{{"bench", "--help"}, {"keys", "--help"}, {"db", "--help"}, {"likbez", "--help"}, {"migrate", "-h"}, {"help", "keys", "create"}} {
		if out, err := exec.Command(yakorBin, args...).CombinedOutput(); err != nil {
			t.Errorf("yakor %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestVersion: yakor version names the module version and, built from
// this checkout, its commit.
func TestVersion(t *testing.T) {
	out, err := exec.Command(yakorBin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "yakor ") {
		t.Fatalf("yakor version: %v %q", err, out)
	}
	// Go stamps the commit into a build of a checkout (not of a linked
	// worktree, which it does not read: there it says "(devel)").
	git := func(args ...string) string {
		b, err := exec.Command("git", args...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(b))
	}
	if git("rev-parse", "--git-dir") == git("rev-parse", "--git-common-dir") && !strings.Contains(string(out), git("rev-parse", "HEAD")[:12]) {
		t.Fatalf("yakor version %q does not name the commit", out)
	}
}

func TestUnknownCommand(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"serv"}, &bytes.Buffer{}, &stderr, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), `unknown command "serv"`) {
		t.Fatalf("err = %v", err)
	}
}
