package cache

import (
	"encoding/json"
	"math"
	"testing"
)

// FuzzDecode: stored values are read back from a file another process (or
// a damaged disk) may have written; decoding never panics and round-trips.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"text":"hi","model":"m","usage":{"prompt_tokens":1,"completion_tokens":2}}`), 2)
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 0}, 2)
	f.Add([]byte(`{"text":`), 0)
	f.Fuzz(func(t *testing.T, b []byte, dim int) {
		if s, err := decodeChat(b); err == nil {
			if _, err := decodeChat([]byte(`{"text":` + quote(s.Text) + `}`)); err != nil {
				t.Fatalf("re-decode: %v", err)
			}
		}
		if dim < 0 || dim > 1<<16 {
			return
		}
		v, err := decodeVector(b, dim)
		if err != nil {
			return
		}
		back := encodeVector(v)
		for i := range b {
			if back[i] != b[i] && !math.IsNaN(float64(v[i/4])) {
				t.Fatalf("round trip differs at byte %d", i)
			}
		}
	})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
