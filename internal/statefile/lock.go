package statefile

import "context"

// FileLock is an exclusive advisory lock on one state file, held by the
// process that took it (with Lock) until Unlock. The file itself is not
// locked, for it is replaced by WriteFile's rename: the lock lives in a
// file beside it, path + ".lock" (0600, empty, never removed, since
// removing a lock file would let two processes lock two files).
//
// On unix systems the lock is flock(2): every process that locks the
// same path, and every FileLock taken in one process, waits for the one
// that holds it, and a process that dies releases its lock. Elsewhere
// there is no such lock: Lock checks the directory and returns at once,
// and processes are not serialized (CrossProcess is false). A FileLock
// is not for concurrent use.
type FileLock struct {
	release func() error
}

// Lock takes the lock of the state file at path, waiting while another
// holder has it, until ctx ends (then it returns ctx's error). It creates
// the state directory (0700) and the lock file (0600) when they do not
// exist, and refuses, as OpenAppend does, a directory or lock file that
// another user could have planted.
func Lock(ctx context.Context, path string) (*FileLock, error) {
	return lock(ctx, path)
}

// Unlock releases the lock. Calling it more than once is harmless.
func (l *FileLock) Unlock() error {
	if l == nil || l.release == nil {
		return nil
	}
	r := l.release
	l.release = nil
	return r()
}

// CrossProcess reports whether Lock serializes processes on this system.
const CrossProcess = crossProcess
