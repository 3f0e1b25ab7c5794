package cli

import (
	"bytes"
	"io"
	"os"
	"testing"

	"a2atop/internal/ptytest"
)

// openTerminal opens a pseudo-terminal cols wide and returns its
// terminal end, for a command's stdout, and a function that closes it
// and returns everything written to it (line ends as written, "\r\n").
func openTerminal(t *testing.T, cols uint16) (*os.File, func() string) {
	t.Helper()
	m, s := ptytest.Open(t, cols, 24)
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, m); close(done) }() // ends with EIO once s is closed
	return s, func() string {
		s.Close()
		<-done
		m.Close()
		return out.String()
	}
}
