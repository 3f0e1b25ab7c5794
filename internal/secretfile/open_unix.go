//go:build unix

package secretfile

import (
	"io/fs"
	"os"
	"syscall"
)

// open opens path for reading without blocking on a named pipe (a FIFO
// opened for reading waits for a writer otherwise); the regular file
// that Read accepts reads the same with or without O_NONBLOCK.
func open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: plain(err)}
	}
	return f, nil
}
