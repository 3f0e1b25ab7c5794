package secretfile

import (
	"fmt"
	"os"
	"runtime"
)

// ReadableByOthers says, for a key or secret file, whether users other
// than its owner may read it (any group or other permission bit, on unix
// systems), in words that say what to do; "" when not, when the file
// cannot be looked at, or on systems without such modes.
func ReadableByOthers(path string) string {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("the key file %s can be read by other users (mode %04o): chmod 600 it", path, fi.Mode().Perm())
}
