//go:build !unix

package checkpoints

import "os"

// lockFile only creates the lock file where flock is unavailable: two
// processes on one run directory are then not detected.
func lockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}
