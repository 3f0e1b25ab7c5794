package termbg_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/charmbracelet/bubbletea" // its init is what must ask nothing
	"github.com/charmbracelet/lipgloss"

	"a2atop/internal/ptytest"
)

// TestChild is the process the tests below start on a pseudo-terminal
// of its own (its controlling terminal); it does nothing otherwise.
func TestChild(t *testing.T) {
	switch os.Getenv("TERMBG_CHILD") {
	case "start":
		fmt.Printf("READY dark=%v\n", lipgloss.HasDarkBackground())
	}
}

// TestNothingAsksTheTerminalAtStart: a program that links Bubble Tea
// (whose init asks the terminal for its background) starts without a
// query on its terminal, so a terminal that never answers does not hold
// it up for termenv's 5 s.
func TestNothingAsksTheTerminalAtStart(t *testing.T) {
	out := runChild(t, "start", "")
	if strings.Contains(out, "\x1b]11;?") || strings.Contains(out, "\x1b[6n") {
		t.Fatalf("the terminal was asked at start: %q", out)
	}
	if !strings.Contains(out, "READY dark=true") {
		t.Fatalf("without COLORFGBG the start guess is dark; the child wrote %q", out)
	}
}

// runChild runs TestChild in mode on a new pseudo-terminal that is its
// controlling terminal; answer, if not empty, is typed once the child
// asks for the background. It returns what the child wrote.
func runChild(t *testing.T, mode, answer string) string {
	t.Helper()
	m, s := ptytest.Open(t, 0, 0)
	defer m.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1")
	// CI= : termenv asks no terminal anything while CI is set (its
	// isTTY), as it is in .ci/run.
	cmd.Env = append(os.Environ(), "TERMBG_CHILD="+mode, "TERM=xterm-256color", "COLORFGBG=", "CI=")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		s.Close()
		t.Fatal(err)
	}
	s.Close()
	var (
		mu  sync.Mutex
		out bytes.Buffer
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		answered := false
		for {
			k, err := m.Read(buf)
			mu.Lock()
			out.Write(buf[:k])
			asked := strings.Contains(out.String(), "\x1b[6n")
			mu.Unlock()
			if asked && answer != "" && !answered {
				answered = true
				_, _ = m.WriteString(answer)
			}
			if err != nil {
				return // EIO once the child has exited
			}
		}
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("child: %v", err)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-waited
		t.Error("the child did not end within 60 s")
	}
	m.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return out.String()
}
