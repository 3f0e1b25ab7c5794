//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package approvals

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an flock on f without waiting: exclusive or shared. It
// reports false when another open file holds it in a conflicting mode.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// processAlive reports whether a process with this pid runs on this
// host: one that has exited and waits to be reaped (a zombie) does not.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !exited(pid)
}
