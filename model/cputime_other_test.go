//go:build !unix

package model

import "time"

// cpuTime is not measured here; BenchmarkApplyStatus then reports wall time only.
func cpuTime() time.Duration { return 0 }
