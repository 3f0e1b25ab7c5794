//go:build !unix

package secretfile

import (
	"io/fs"
	"os"
)

// open opens path for reading.
func open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: plain(err)}
	}
	return f, nil
}
