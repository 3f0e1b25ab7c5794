package approvals

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// envWaitChild makes TestWaitChild wait for its standard input to end.
const envWaitChild = "A2ATOP_APPROVALS_WAIT_CHILD"

// TestWaitChild is the child of TestZombieIsNotAlive: it runs until its
// standard input ends. It does nothing unless that test started it.
func TestWaitChild(t *testing.T) {
	if os.Getenv(envWaitChild) == "" {
		t.Skip("runs only as the child of TestZombieIsNotAlive")
	}
	var b [1]byte
	_, _ = os.Stdin.Read(b[:])
}

// procState is the state letter /proc gives the process, "" when it
// has none (reaped, or no /proc).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(b, ')'); err == nil && i >= 0 && i+2 < len(b) {
		return string(b[i+2])
	}
	return ""
}

// TestZombieIsNotAlive: a process that has exited but whose parent has
// not waited for it yet (a zombie: what a hub killed under a supervisor
// that has not reaped it leaves) is not a process that may be sending a
// decision; a running one is.
func TestZombieIsNotAlive(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("tells a zombie by /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWaitChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envWaitChild+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if !processAlive(pid) {
		t.Fatalf("the running child %d is not alive", pid)
	}
	_ = stdin.Close() // the child ends; nobody waits for it yet
	for end := time.Now().Add(30 * time.Second); procState(pid) != "Z"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the child never became a zombie (state %q)", procState(pid))
		}
	}
	if processAlive(pid) {
		t.Errorf("the zombie %d (state Z in /proc/%d/stat) counts as alive", pid, pid)
	}
	_ = cmd.Wait()
	if processAlive(pid) {
		t.Errorf("the reaped child %d counts as alive", pid)
	}
}
