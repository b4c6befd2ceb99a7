//go:build !linux

package zmachine

import "time"

// threadCPU reads no thread CPU time outside Linux.
func threadCPU() (time.Duration, bool) { return 0, false }
