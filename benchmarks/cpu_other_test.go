//go:build !unix

package benchmarks

import "time"

// processCPU is not available here: the CPU metrics are left out.
func processCPU() (time.Duration, bool) { return 0, false }
