//go:build !unix

package credential

import "os/exec"

// ownGroup leaves cmd as exec makes it: without process groups, a
// cancellation kills the command alone, and WaitDelay bounds the wait
// for children that keep its output open.
func ownGroup(*exec.Cmd) {}
