package memstream

import "testing"

// CompareTop, StreamLen and ScanBelow let the external tests (which train
// with the offline roles, a package importing this one) hold every
// retrieval equal to the scan.
func CompareTop(t *testing.T) (all, large func() int64) {
	n := compareTop(t)
	return n.All.Load, n.Large.Load
}

// StreamLen is the number of memories in m's stream.
func (m *Method) StreamLen() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.s.Len()
}

// ScanBelow is the stream size under which Retrieve scores every memory.
const ScanBelow = scanBelow
