package secretfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxSize is the largest file Read accepts, in bytes: far above a token,
// a key or a certificate chain, and above the largest CA bundles.
const MaxSize = 1 << 20

// ErrNotRegular is the reason a file that is not a regular file (a
// device, a named pipe, a socket, a directory) is refused.
var ErrNotRegular = errors.New("not a regular file (a device, a pipe or a directory): name a file that holds the secret itself")

// ErrTooLarge is the reason a file larger than MaxSize is refused.
var ErrTooLarge = fmt.Errorf("larger than %d KiB: a secret, key or certificate file is smaller; is it the right file?", MaxSize>>10)

// Read returns the contents of the regular file at path, following
// symbolic links. A file that is not regular, or is larger than MaxSize,
// is refused without reading it. Every error is an *fs.PathError naming
// path, whose Err is the reason (ErrNotRegular, ErrTooLarge, or the
// system's, such as fs.ErrNotExist).
func Read(path string) ([]byte, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpen(f, path)
}

// ReadOpen is Read of a file already open (as statefile opens one), named
// path in its errors. It does not close f.
func ReadOpen(f *os.File, path string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: plain(err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	if fi.Size() > MaxSize {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrTooLarge}
	}
	// The size may grow between the stat and the read (a file being
	// written): the limit holds whatever it does.
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: plain(err)}
	}
	if len(b) > MaxSize {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrTooLarge}
	}
	return b, nil
}

// Reason is err's reason without the path an *fs.PathError repeats, for
// callers that name the file themselves.
func Reason(err error) error { return plain(err) }

func plain(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
