//go:build unix

package credential

import (
	"io/fs"
	"syscall"
)

// fileIdentity is the file's device and inode, so that a file replaced by
// a rename is seen as changed even with the same size and time.
func fileIdentity(fi fs.FileInfo) any {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(st.Dev), st.Ino}
	}
	return nil
}
