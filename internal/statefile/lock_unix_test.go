//go:build unix

package statefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A lock taken is waited for by every other taker of the same path (two
// FileLocks in one process too: flock locks open files, not processes),
// until it is released or the waiter's context ends; the lock file is
// private and stays.
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "tokens", "a.json")
	first, err := Lock(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if l, err := Lock(ctx, path); !errors.Is(err, context.DeadlineExceeded) {
		l.Unlock()
		t.Fatalf("a second lock while the first is held: %v, want the context's deadline", err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := Lock(t.Context(), path)
		if err == nil {
			err = l.Unlock()
		}
		got <- err
	}()
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the waiter, once the lock was released: %v", err)
	}
	if err := first.Unlock(); err != nil {
		t.Fatalf("a second Unlock: %v", err)
	}
	fi, err := os.Lstat(path + ".lock")
	if err != nil || fi.Mode().Perm() != FileMode {
		t.Fatalf("the lock file: %v, %v; want it kept, 0600", fi, err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("locking created the state file itself")
	}
}

// A lock file planted as a link to the victim's file is refused and the
// victim is left alone.
func TestLockRefusesPlantedLink(t *testing.T) {
	v := newVictim(t)
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.Symlink(v.path, path+".lock"); err != nil {
		t.Fatal(err)
	}
	l, err := Lock(t.Context(), path)
	if err == nil {
		l.Unlock()
	}
	wantUnsafe(t, err, "symbolic link")
	v.untouched(t)
}
