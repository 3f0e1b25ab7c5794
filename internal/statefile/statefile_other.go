//go:build !unix

package statefile

import (
	"fmt"
	"os"
)

// openNoFollow opens path with flag. Without O_NOFOLLOW, a symbolic link
// is refused by checking first.
func openNoFollow(path string, flag int) (*os.File, error) {
	if li, err := os.Lstat(path); err == nil && li.Mode()&os.ModeSymlink != 0 {
		return nil, unsafe(path, "is a symbolic link; a2atop writes its state only to a regular file of its own", fixLink)
	}
	f, err := os.OpenFile(path, flag, FileMode)
	if err != nil {
		return nil, plain(err)
	}
	return f, nil
}

// checkFile refuses an open state file that is not a regular file.
func checkFile(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, plain(err))
	}
	if !fi.Mode().IsRegular() {
		return unsafe(path, fmt.Sprintf("is not a regular file (%s)", fi.Mode().Type()), fixOwn)
	}
	return nil
}

// checkDir refuses a state directory that is not a directory; owners and
// modes are not checked on this system.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, plain(err))
	}
	if !fi.IsDir() {
		return unsafe("state directory "+dir, "is not a directory", fixOwn)
	}
	return nil
}
