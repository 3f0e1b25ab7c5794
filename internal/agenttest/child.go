package agenttest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"testing"
)

// Child is the test binary run again as another process, for the tests
// that need two processes at once (two dashboards on one journal, two
// sign-ins on one token file): it runs the test named and talks over its
// standard input and output, a line at a time.
type Child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// StartChild runs the test binary with -test.run=^test$ and env added to
// the environment, and returns once the child has written "ready". The
// child is killed when t ends.
func StartChild(t testing.TB, test string, env ...string) *Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &Child{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c.Expect(t, func(line string) bool { return line == "ready\n" })
	return c
}

// Say writes line and a newline to the child's standard input.
func (c *Child) Say(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// Expect reads the child's output until a line satisfies ok, and
// returns it.
func (c *Child) Expect(t testing.TB, ok func(string) bool) string {
	t.Helper()
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			t.Fatalf("the child ended before it said what was expected: %v", err)
		}
		if ok(line) {
			return line
		}
	}
}

// Wait waits for the child to end and says how it ended.
func (c *Child) Wait() error { return c.cmd.Wait() }
