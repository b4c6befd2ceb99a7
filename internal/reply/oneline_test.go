package reply

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"  **Take** the `apple`\n now. ", 100, "Take the apple now."},
		{`"quoted"`, 100, "quoted"},
		{"one two three", 8, "one two"},
		{strings.Repeat("é", 10), 5, "éé"},
		{"\xff\xfe", 10, ""},
	} {
		if got := OneLine(tc.in, tc.n); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"a b", "\xff", strings.Repeat("é", 30), " \n\t"} {
		f.Add(s, 7)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1000 {
			return
		}
		got := OneLine(s, n)
		if len(got) > n || strings.ContainsAny(got, "\n\t") || !utf8.ValidString(got) || got != strings.TrimSpace(got) {
			t.Fatalf("OneLine(%q, %d) = %q", s, n, got)
		}
	})
}
