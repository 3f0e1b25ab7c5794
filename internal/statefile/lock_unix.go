//go:build unix

package statefile

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

const crossProcess = true

// lock opens the lock file and takes flock(2) on it without blocking,
// trying again with a growing pause (5 ms to 100 ms) while another holds
// it, so that the wait ends with ctx.
func lock(ctx context.Context, path string) (*FileLock, error) {
	f, err := OpenAppend(path + ".lock")
	if err != nil {
		return nil, err
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	pause := 5 * time.Millisecond
	for {
		var ferr error
		if err := rc.Control(func(fd uintptr) { ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB) }); err != nil {
			ferr = err
		}
		switch {
		case ferr == nil:
			return &FileLock{release: f.Close}, nil // closing the last descriptor releases flock
		case !errors.Is(ferr, syscall.EWOULDBLOCK) && !errors.Is(ferr, syscall.EINTR):
			f.Close()
			return nil, fmt.Errorf("lock %s.lock: %w", path, ferr)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
		pause = min(pause*2, 100*time.Millisecond)
	}
}
