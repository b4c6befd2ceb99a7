// Package fold finds text case-insensitively in model replies without
// changing byte offsets: strings.ToLower may change the length of a string
// (invalid UTF-8 becomes U+FFFD; some runes lower-case to longer ones), so
// an index found in strings.ToLower(s) is not an index into s.
package fold

// Lower lower-cases the ASCII letters of s and keeps every other byte, so
// that indices into the result are indices into s.
func Lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Index is the byte index in s of the first occurrence of sub, compared
// with ASCII letter case ignored, or -1. sub should be lower case.
func Index(s, sub string) int { return indexOf(Lower(s), sub) }

func indexOf(s, sub string) int {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		if s[i:i+n] == sub {
			return i
		}
	}
	return -1
}
