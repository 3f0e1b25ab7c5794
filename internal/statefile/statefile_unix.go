//go:build unix

package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens path with flag, refusing a symbolic link at path.
// It does not wait on a named pipe planted there (O_NONBLOCK, which
// changes nothing for the regular file checkFile then requires).
func openNoFollow(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, FileMode)
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) { // EMLINK on the BSDs
		return nil, unsafe(path, "is a symbolic link; a2atop writes its state only to a regular file of its own", fixLink)
	}
	if err != nil {
		return nil, plain(err) // still errors.Is(err, fs.ErrNotExist) when missing
	}
	return f, nil
}

// checkFile refuses an open state file that is not a regular file owned
// by the user a2atop runs as.
func checkFile(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, plain(err))
	}
	if !fi.Mode().IsRegular() {
		return unsafe(path, fmt.Sprintf("is not a regular file (%s)", fi.Mode().Type()), fixOwn)
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return unsafe(path, fmt.Sprintf("is owned by another user (uid %d, not %d)", uid, os.Geteuid()), fixOwn)
	}
	return nil
}

func checkDir(dir string) error {
	li, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, plain(err))
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		if uid, ok := owner(li); ok && uid != os.Geteuid() && uid != 0 {
			return unsafe("state directory "+dir, fmt.Sprintf("is a symbolic link made by another user (uid %d)", uid), fixOwn)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, plain(err))
	}
	switch uid, ok := owner(fi); {
	case !fi.IsDir():
		return unsafe("state directory "+dir, "is not a directory", fixOwn)
	case ok && uid != os.Geteuid():
		return unsafe("state directory "+dir, fmt.Sprintf("is owned by another user (uid %d, not %d), who may have planted it", uid, os.Geteuid()), fixOwn)
	case fi.Mode().Perm()&0o022 != 0:
		return unsafe("state directory "+dir, fmt.Sprintf("is writable by other users (mode %04o)", fi.Mode().Perm()), fixMode)
	}
	return nil
}

// owner is the uid that owns fi.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
