package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"yakor/postgres/pgtest"
)

// These tests give `yakor serve` a data folder on a disk of its own (a
// tmpfs, or ext4 on a loop device) and then fill that disk or turn it
// read-only, as a real disk does. They mount file systems, so they need
// root (CAP_SYS_ADMIN), as the CI runs them; they fail, not skip, without.

// mustRun runs a command, failing the test with its output if it fails.
func mustRun(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// newMountPoint makes an empty folder the postgres account can reach.
func newMountPoint(t *testing.T) string {
	t.Helper()
	pgtest.RequireRoot(t, "it mounts file systems")
	return filepath.Dir(pgtest.DataDir(t)) + "/disk"
}

// mountTmpfs mounts a tmpfs of size (e.g. "160m") and unmounts it when the
// test ends, after the servers it ran have stopped.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	mnt := newMountPoint(t)
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "mount", "-t", "tmpfs", "-o", "size="+size+",mode=0755", "yakor-test", mnt)
	t.Cleanup(func() { unmount(t, mnt) })
	return mnt
}

// mountExt4 makes an ext4 file system of size bytes in an image file and
// mounts it through a loop device with errors=remount-ro (as a server's
// disk would be). It returns the mount point and the image; the file
// system is unmounted when the test ends.
func mountExt4(t *testing.T, size int64) (mnt, img string) {
	t.Helper()
	mnt = newMountPoint(t)
	img = filepath.Join(filepath.Dir(mnt), "disk.img")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, size); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "mkfs.ext4", "-q", "-F", img)
	mountImage(t, img, mnt)
	t.Cleanup(func() { unmount(t, mnt) })
	return mnt, img
}

func mountImage(t *testing.T, img, mnt string) {
	t.Helper()
	mustRun(t, "mount", "-o", "loop,errors=remount-ro", img, mnt)
	if err := os.Chmod(mnt, 0o755); err != nil && !errors.Is(err, syscall.EROFS) {
		t.Fatal(err)
	}
}

// unmount unmounts mnt, waiting for the processes using it to end; as a
// last resort it detaches it lazily, so that no test leaves a mount behind.
func unmount(t *testing.T, mnt string) {
	t.Helper()
	if err := tryUnmount(mnt, 30*time.Second); err != nil {
		if out, lerr := exec.Command("umount", "-l", mnt).CombinedOutput(); lerr != nil {
			t.Errorf("umount -l %s: %v\n%s", mnt, lerr, out)
		}
		t.Errorf("%v (detached lazily)", err)
	}
}

// tryUnmount unmounts mnt, trying again while it is busy, for up to wait.
func tryUnmount(mnt string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		out, err := exec.Command("umount", mnt).CombinedOutput()
		if err == nil || strings.Contains(string(out), "not mounted") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("umount %s: %v\n%s", mnt, err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// fill writes a file into mnt until its disk is full.
func fill(t *testing.T, mnt string) {
	t.Helper()
	f, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, chunk := range []int{1 << 20, 4 << 10} {
		buf := make([]byte, chunk)
		for {
			if _, err := f.Write(buf); errors.Is(err, syscall.ENOSPC) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// readOnly turns the ext4 file system at mnt read-only the way a disk
// error does (the kernel's trigger_fs_error: with errors=remount-ro the
// file system stops taking writes, even to files already open).
func readOnly(t *testing.T, mnt string) {
	t.Helper()
	out, err := exec.Command("findmnt", "-no", "SOURCE", mnt).Output()
	if err != nil {
		t.Fatalf("findmnt %s: %v", mnt, err)
	}
	dev := filepath.Base(strings.TrimSpace(string(out)))
	if err := os.WriteFile("/sys/fs/ext4/"+dev+"/trigger_fs_error", []byte("yakor test: the disk turns read-only"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mnt, "probe"), nil, 0o600); !errors.Is(err, syscall.EROFS) {
		t.Fatalf("after the error, writing in %s gives %v, want EROFS", mnt, err)
	}
}

// query runs sql on the private cluster in dir as the superuser and scans
// its one row into dest.
func query(t *testing.T, dir, sql string, dest ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "host="+filepath.Join(dir, "run")+" port=5432 user=postgres dbname=yakor sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, sql).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// checkWhole fails if the database holds a user message without a turn or
// a turn still running.
func checkWhole(t *testing.T, dir string) {
	t.Helper()
	var orphans, running int
	query(t, dir, `
SELECT (SELECT count(*) FROM messages m WHERE m.role = 'user' AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.user_message_id = m.id)),
       (SELECT count(*) FROM turns WHERE status = 'running')`, &orphans, &running)
	if orphans != 0 || running != 0 {
		t.Fatalf("half-written: %d user messages without a turn, %d turns running", orphans, running)
	}
}

type sendResult struct {
	Reply struct{ Content string }
	Error string
}

// send posts a message with a client id and returns the status and error.
func (s *server) send(t *testing.T, thread, content, clientID string) (int, string) {
	t.Helper()
	var r sendResult
	code := s.call(t, "POST", "/api/v1/threads/"+thread+"/messages", fmt.Sprintf(`{"content":%q,"client_id":%q}`, content, clientID), &r)
	if code == http.StatusOK && r.Reply.Content == "" {
		t.Fatalf("send %q: 200 without a reply", clientID)
	}
	return code, r.Error
}

// conversation is what a thread was acknowledged to hold: the user
// messages answered with 200, in order.
type conversation struct {
	thread string
	sent   []string
}

func (c *conversation) mustSend(t *testing.T, s *server, content, clientID string) {
	t.Helper()
	if code, msg := s.send(t, c.thread, content, clientID); code != http.StatusOK {
		t.Fatalf("send %q: %d %s", clientID, code, msg)
	}
	c.sent = append(c.sent, content)
}

// check fails unless the thread holds each acknowledged message once,
// answered, in order (messages refused meanwhile may sit between them,
// each once and unanswered).
func (c *conversation) check(t *testing.T, s *server) {
	t.Helper()
	l := s.messages(t, c.thread)
	seen := map[string]int{}
	next := 0
	for i, m := range l.Messages {
		if m.Role != "user" {
			continue
		}
		if seen[m.Content]++; seen[m.Content] > 1 {
			t.Fatalf("%q stored twice", m.Content)
		}
		if next < len(c.sent) && m.Content == c.sent[next] {
			if i+1 >= len(l.Messages) || l.Messages[i+1].Role != "assistant" {
				t.Fatalf("acknowledged %q has no reply", m.Content)
			}
			next++
		}
	}
	if next != len(c.sent) {
		t.Fatalf("%d of %d acknowledged messages are there: %+v", next, len(c.sent), l.Messages)
	}
}

func newConversation(t *testing.T, s *server) *conversation {
	t.Helper()
	var th struct{ ID string }
	if code := s.call(t, "POST", "/api/v1/threads", `{"title":"disk"}`, &th); code != http.StatusCreated {
		t.Fatalf("create thread: %d", code)
	}
	return &conversation{thread: th.ID}
}

// randomWords is n words of text that does not compress, so that every message
// takes room on the disk.
func randomWords(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(strconv.FormatUint(r.Uint64(), 36))
		b.WriteByte(' ')
	}
	return b.String()
}

// TestServeDiskFull: the data folder's disk fills up. Sends answer 503
// saying the disk is full until one is refused (a send that still fits is
// stored and answered); nothing is half-written; reads work; once space is
// freed the refused message is answered when sent again, new ones too,
// and after a restart everything acknowledged is there.
func TestServeDiskFull(t *testing.T) {
	mnt := mountTmpfs(t, "160m")
	dir := filepath.Join(mnt, "data")
	s := startServer(t, dir)
	c := newConversation(t, s)
	c.mustSend(t, s, "Прайс: ЛДСП 3400 руб за лист.", "before-1")
	// Start a fresh WAL segment while there is room: 16 MB of WAL for the
	// rest of the test, so PostgreSQL need not make a segment on the full
	// disk (which it cannot survive) and this test sees it keep serving.
	var lsn string
	query(t, dir, `SELECT pg_switch_wal()::text`, &lsn)
	c.mustSend(t, s, "Доставка 900 руб.", "before-2")

	fill(t, mnt)
	rng := rand.New(rand.NewPCG(1, 2))
	var refused, refusedID string
	for i := 0; i < 30 && refused == ""; i++ {
		content, id := fmt.Sprintf("while full %d: %s", i, randomWords(rng, 600)), fmt.Sprintf("full-%d", i)
		switch code, msg := s.send(t, c.thread, content, id); code {
		case http.StatusOK:
			c.sent = append(c.sent, content) // it still fitted
		case http.StatusServiceUnavailable:
			if !strings.Contains(msg, "the database's disk is full") || !strings.Contains(msg, dir) {
				t.Fatalf("refused with %q, want it to say the disk of %s is full", msg, dir)
			}
			refused, refusedID = content, id
		default:
			t.Fatalf("send while full: %d %s", code, msg)
		}
	}
	if refused == "" {
		t.Fatal("30 sends of 600 words each were all stored on a full disk")
	}
	checkWhole(t, dir)
	c.check(t, s)
	if code := s.call(t, "GET", "/api/v1/threads", "", nil); code != http.StatusOK {
		t.Fatalf("list threads while full: %d", code)
	}

	if err := os.Remove(filepath.Join(mnt, "filler")); err != nil {
		t.Fatal(err)
	}
	c.mustSend(t, s, refused, refusedID)
	c.mustSend(t, s, "Сколько стоит ЛДСП с доставкой?", "after-1")
	checkWhole(t, dir)
	c.check(t, s)
	c.waitAnchored(t, s)

	s.stop(t, syscall.SIGTERM)
	s = startServer(t, dir)
	c.check(t, s)
	c.mustSend(t, s, "И ещё одна доставка?", "after-restart")
}

// TestServeDiskReadOnly: the data folder's disk turns read-only under the
// running server, as ext4 does on a disk error. A send answers 503 saying
// the database cannot write and naming the folder, and keeps doing so
// while PostgreSQL, which cannot run without writing, stops; nothing is
// half-written; once the disk is checked and mounted writable again, Yakor
// starts its PostgreSQL again by itself, the refused message is answered
// when sent again, and everything acknowledged is there, also after a
// restart.
func TestServeDiskReadOnly(t *testing.T) {
	mnt, img := mountExt4(t, 256<<20)
	dir := filepath.Join(mnt, "data")
	s := startServer(t, dir)
	c := newConversation(t, s)
	c.mustSend(t, s, "Прайс: ЛДСП 3400 руб за лист.", "before-1")
	c.mustSend(t, s, "Доставка 900 руб.", "before-2")

	readOnly(t, mnt)
	refused := "Сколько стоит ЛДСП с доставкой?"
	for i := range 3 {
		code, msg := s.send(t, c.thread, refused, "ro")
		if code != http.StatusServiceUnavailable || !strings.Contains(msg, "the database cannot write") || !strings.Contains(msg, "read-only") || !strings.Contains(msg, dir) {
			t.Fatalf("send %d on a read-only disk: %d %q, want 503 saying the database cannot write to %s\n%s", i, code, msg, dir, s.log)
		}
	}
	// Reads work while PostgreSQL runs; once it has stopped they say why.
	var l listed
	if code := s.call(t, "GET", "/api/v1/threads/"+c.thread+"/messages", "", &l); code != http.StatusOK && code != http.StatusServiceUnavailable {
		t.Fatalf("read on a read-only disk: %d", code)
	}

	// An administrator's repair: unmount (once PostgreSQL has stopped),
	// check the file system, mount it again.
	if err := tryUnmount(mnt, 60*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	if out, err := exec.Command("e2fsck", "-f", "-y", img).CombinedOutput(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() > 1 { // 1: errors corrected
			t.Fatalf("e2fsck: %v\n%s", err, out)
		}
	}
	mountImage(t, img, mnt)
	deadline := time.Now().Add(90 * time.Second)
	for {
		code, msg := s.send(t, c.thread, refused, "ro")
		if code == http.StatusOK {
			c.sent = append(c.sent, refused)
			break
		}
		if code != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("send after the repair: %d %q\n%s", code, msg, s.log)
		}
		time.Sleep(500 * time.Millisecond)
	}
	c.mustSend(t, s, "И ещё одна доставка?", "after-1")
	checkWhole(t, dir)
	c.check(t, s)
	c.waitAnchored(t, s)

	s.stop(t, syscall.SIGTERM)
	s = startServer(t, dir)
	c.check(t, s)
	checkWhole(t, dir)
}

// waitAnchored waits until the job queue has anchored the thread up to its
// last message: the post-turn jobs run again.
func (c *conversation) waitAnchored(t *testing.T, s *server) {
	t.Helper()
	l := s.messages(t, c.thread)
	last := l.Messages[len(l.Messages)-1].ID
	var a struct {
		ProcessedThrough int64 `json:"processed_through"`
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if code := s.call(t, "GET", "/api/v1/threads/"+c.thread+"/anchors", "", &a); code == http.StatusOK && a.ProcessedThrough >= last {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the thread is anchored through message %d, not %d: the job queue does not run\n%s", a.ProcessedThrough, last, s.log)
		}
	}
}
