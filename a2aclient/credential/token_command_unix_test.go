//go:build unix

package credential

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runCommand runs src.token in the background and waits for it at most
// 30 s (far less than the 60 s its command's child holds the output).
func runCommand(t *testing.T, ctx context.Context, src commandSource) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, _, err := src.token(ctx); done <- err }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the credential command is still running after 30s")
		return nil
	}
}

// groupGone waits until no process of the group pgid is left.
func groupGone(t *testing.T, pgfile string) {
	t.Helper()
	b, err := os.ReadFile(pgfile)
	if err != nil {
		t.Fatalf("the command never started: %v", err)
	}
	pg, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		if err := syscall.Kill(-pg, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("the command's process group %d is still alive", pg)
}

// A credential command whose shell is killed at command_timeout while
// its child (sleep) keeps the output open: the timeout is the timeout,
// the whole group is killed, and the error says the command did not
// finish in time. Before, the call waited for the child (the issue saw
// 24 s for a 2 s timeout). The caller's context (tasks --timeout) ends
// the command the same way.
func TestCredentialCommandTimeoutKillsItsChildren(t *testing.T) {
	for _, end := range []string{"command_timeout", "caller"} {
		t.Run(end, func(t *testing.T) {
			pgfile := filepath.Join(t.TempDir(), "pgid")
			script := `ps -o pgid= $$ > "$1"; sleep 60; echo late-token`
			src := commandSource{argv: []string{"sh", "-c", script, "cred", pgfile}, timeout: time.Second, now: time.Now}
			ctx := context.Background()
			if end == "caller" {
				src.timeout = 10 * time.Minute
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Second)
				defer cancel()
			}
			err := runCommand(t, ctx, src)
			var ce *CredentialError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v; want a credential error", err)
			}
			if end == "command_timeout" && !strings.Contains(ce.Words, "did not finish within 1s") {
				t.Errorf("words = %q", ce.Words)
			}
			groupGone(t, pgfile)
		})
	}
}

// A credential command that prints without end is stopped at the cap
// on its output, not read until the memory runs out.
func TestCredentialCommandOutputWithoutEnd(t *testing.T) {
	src := commandSource{argv: []string{"cat", "/dev/zero"}, timeout: 10 * time.Minute, now: time.Now}
	err := runCommand(t, context.Background(), src)
	var ce *CredentialError
	if !errors.As(err, &ce) || !strings.Contains(ce.Words, "printed more than") {
		t.Fatalf("err = %v; want the command refused for printing too much", err)
	}
}

// A credential command that ran out its timeout is not run again at
// once: the failure is held errorHold from when it was known, not from
// when the command started (which let a 2 s timeout, as long as the
// hold, be run twice in a row: the 4 s, then 24 s).
func TestCredentialCommandFailureIsHeldAfterItsTimeout(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	now := time.Now()
	src := commandSource{argv: []string{"sh", "-c", `echo run >> "$1"; sleep 60`, "cred", runs}, timeout: 200 * time.Millisecond, now: time.Now}
	c := newCachedToken(clockedSource{src, func() { now = now.Add(errorHold) }}, "Authorization", "Bearer ")
	c.now = func() time.Time { return now }
	for i := 0; i < 2; i++ {
		if _, err := c.Headers(context.Background()); err == nil {
			t.Fatal("a command that timed out gave a token")
		}
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "run") != 1 {
		t.Errorf("the command ran %d times; want once, its failure held", strings.Count(string(b), "run"))
	}
}

// clockedSource is a real source whose run takes, on the cache's clock,
// as long as tick says (here: the whole error hold).
type clockedSource struct {
	src  commandSource
	tick func()
}

func (s clockedSource) token(ctx context.Context) (string, time.Time, error) {
	defer s.tick()
	return s.src.token(ctx)
}
