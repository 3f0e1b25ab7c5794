//go:build unix

package model

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time (0 if unavailable).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
