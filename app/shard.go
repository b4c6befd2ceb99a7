package app

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is the part of a command's work one process does: part Index of
// N (-shard i/n, 0 <= i < n). The zero Shard is the whole work. The work
// items, (seed, method, split, task) for eval and one sub-run for a sweep
// or a grid, are listed in a fixed order and item k goes to part k mod N,
// so that n processes, each told its own i, do every item once
// (docs/SCALING.md).
type Shard struct {
	Index, N int
}

// Active reports whether the work is split.
func (s Shard) Active() bool { return s.N > 0 }

// Takes reports whether item k of the work is this part's.
func (s Shard) Takes(k int) bool { return !s.Active() || k%s.N == s.Index }

// String renders "i/n" ("" for the whole work).
func (s *Shard) String() string {
	if s == nil || !s.Active() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.N)
}

// Set parses "i/n" with 0 <= i < n; "" is the whole work.
func (s *Shard) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		*s = Shard{}
		return nil
	}
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return fmt.Errorf("%q: want i/n with 0 <= i < n, e.g. 0/4", v)
	}
	*s = Shard{Index: i, N: n}
	return nil
}

// Dir names the part's directory: "<i>-of-<n>".
func (s Shard) Dir() string { return fmt.Sprintf("%d-of-%d", s.Index, s.N) }

// seedList is the -seeds flag: a list of run seeds ("1-5", "1,7,9").
type seedList []int64

func (l *seedList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(parts, ",")
}

func (l *seedList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		*l = nil
		return nil
	}
	seeds, err := ParseSeedList(v)
	if err != nil {
		return err
	}
	seen := map[int64]bool{}
	for _, s := range seeds {
		if seen[s] {
			return fmt.Errorf("seed %d is listed twice", s)
		}
		seen[s] = true
	}
	*l = seeds
	return nil
}
