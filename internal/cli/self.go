package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// selfCommand is how to run this a2atop again from another terminal,
// for a command a2atop prints: "a2atop" when that is what the PATH
// finds, "go run ." when this is a binary `go run` built (whoever ran
// the demo from a clone runs the second command from it too), else the
// binary's own path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "a2atop"
	}
	return commandFor(exe, exec.LookPath)
}

// commandFor is selfCommand for the binary at exe, with lookPath as the
// PATH's lookup.
func commandFor(exe string, lookPath func(string) (string, error)) string {
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ."
	}
	if found, err := lookPath("a2atop"); err == nil && sameFile(found, exe) {
		return "a2atop"
	}
	return exe
}

// sameFile reports whether the paths a and b name one file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
