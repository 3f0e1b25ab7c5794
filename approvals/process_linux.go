package approvals

import (
	"bytes"
	"os"
	"strconv"
)

// exited reports whether the process pid has ended and waits to be
// reaped: state Z (zombie) or X (dead) in /proc/PID/stat. A hub killed
// under a supervisor that has not waited for it yet is one; kill(pid, 0)
// still succeeds on it.
func exited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // no such process is for kill to tell
	}
	// "PID (COMM) STATE ...": COMM may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}
