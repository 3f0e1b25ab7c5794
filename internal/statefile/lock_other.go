//go:build !unix

package statefile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

const crossProcess = false

// lock has no lock to take on this system (see FileLock): it makes and
// checks the state directory as the unix lock does, and returns at once.
func lock(ctx context.Context, path string) (*FileLock, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("create the state directory %s: %w", dir, plain(err))
	}
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	return &FileLock{}, nil
}
