package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGridBadFlags: a malformed grid flag is refused with exit code 2 and a
// message naming the flag, before anything is written.
func TestGridBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-world-seeds", "1-x"}, "-world-seeds"},
		{[]string{"-seeds", "5-1"}, "-seeds"},
		{[]string{"-world-seeds", "1", "-per-type", "5,-1"}, "-per-type"},
		{[]string{"-per-type", "1,5"}, "needs grid mode"},
	} {
		run := filepath.Join(t.TempDir(), "run")
		var out, errb bytes.Buffer
		code := run_(t, append([]string{"-run", run}, tc.args...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", tc.args, code, errb.String(), tc.want)
		}
		if _, err := os.Stat(run); err == nil {
			t.Errorf("%v: the run directory was created", tc.args)
		}
	}
}

func run_(t *testing.T, args []string, out, errb *bytes.Buffer) int {
	t.Helper()
	return run(context.Background(), args, out, errb)
}
