//go:build unix

package credential

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own and makes its
// cancellation (the timeout, the caller's context) kill the whole group:
// a shell's children die with it instead of keeping its output open.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
