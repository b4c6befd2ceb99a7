package zmachine

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time of the calling OS thread, to the nanosecond
// (CLOCK_THREAD_CPUTIME_ID: the scheduler's own count; getrusage's
// RUSAGE_THREAD splits it by ticks and is off by a third on a search of a
// few milliseconds); ok is false where it cannot be read. The caller locks
// its goroutine to the thread (runtime.LockOSThread) around what it
// measures.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
