package zvm

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCZECH compiles CZECH, the Z-machine conformance program, for
// versions 3, 5 and 8 (the issue's) and 4 and 7, runs it with no input, and checks its summary (0
// failures, the test counts dfrotz 2.54 reports for the same file) and its print tests: those
// lines cannot check themselves, so they are compared with dfrotz's. Blank
// lines are left out of that comparison: dfrotz moves some of them (it
// prints one more after print_ret and one fewer before the summary), and
// trailing spaces, which dfrotz trims.
func TestCZECH(t *testing.T) {
	src := filepath.Join(sharedDir(t, "zmachine"), "czech.inf")
	want := map[int]string{
		3: "Performed 368 tests.\nPassed: 349, Failed: 0, Print tests: 19\nDidn't crash: hooray!\nLast test: quit!\n",
		5: "Performed 425 tests.\nPassed: 406, Failed: 0, Print tests: 19\nDidn't crash: hooray!\nLast test: quit!\n",
		4: "Performed 386 tests.\nPassed: 367, Failed: 0, Print tests: 19\nDidn't crash: hooray!\nLast test: quit!\n",
		7: "Performed 425 tests.\nPassed: 406, Failed: 0, Print tests: 19\nDidn't crash: hooray!\nLast test: quit!\n",
		8: "Performed 425 tests.\nPassed: 406, Failed: 0, Print tests: 19\nDidn't crash: hooray!\nLast test: quit!\n",
	}
	dir := t.TempDir()
	for _, v := range []int{3, 4, 5, 7, 8} {
		story := inform6(t, src, v, dir)
		m, err := Load(story, Options{})
		if err != nil {
			t.Fatalf("v%d: Load: %v", v, err)
		}
		out, w := play(t, m, nil)
		if w != Halted {
			t.Errorf("v%d: CZECH ended waiting (%v), want Halted after @quit", v, w)
		}
		if !strings.HasSuffix(out, want[v]) {
			t.Errorf("v%d: CZECH ends\n%s\nwant\n%s", v, tail(out), want[v])
		}
		ref := dfrotz(t, filepath.Join(dir, filepath.Base(strings.TrimSuffix(src, ".inf"))+".z"+string(rune('0'+v))), 0, "")
		got, exp := printTests(out), printTests(ref)
		if len(exp) < 10 {
			t.Fatalf("v%d: dfrotz printed %d print-test lines; its output:\n%s", v, len(exp), ref)
		}
		if strings.Join(got, "\n") != strings.Join(exp, "\n") {
			t.Errorf("v%d: print tests differ from dfrotz's:\n got: %q\nwant: %q", v, got, exp)
		}
	}
}

// printTests returns the non-blank lines of CZECH's print tests, from
// "Print opcodes" to the summary, right-trimmed.
func printTests(out string) []string {
	i := strings.Index(out, "Print opcodes")
	j := strings.Index(out, "Performed ")
	if i < 0 || j < i {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(out[i:j], "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
