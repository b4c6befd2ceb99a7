//go:build !linux

package scale

import "time"

// threadCPU is not measured here: callers fall back to the wall clock.
func threadCPU() (time.Duration, bool) { return 0, false }
