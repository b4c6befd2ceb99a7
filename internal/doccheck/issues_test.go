package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// issueRef matches a reference to an issue by number (the word, an optional
// "#", then digits, also across a comment's line break and with no space),
// which tells a reader of the code nothing: a comment says what the code keeps true and why, and a dated
// measurement belongs in docs/results/. The word "issue" in prose is fine.
var issueRef = regexp.MustCompile(`(?i)\bissues?(?:[ \t]|\n[ \t]*//)*#?[0-9]+`)

// TestNoIssueNumbersInCode: no Go file of the module names an issue number.
func TestNoIssueNumbersInCode(t *testing.T) {
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		files++
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range issueRef.FindAllIndex(text, -1) {
			line := 1 + strings.Count(string(text[:m[0]]), "\n")
			rel, _ := filepath.Rel(root, p)
			t.Errorf("%s:%d: %q names an issue number; say the reason instead (the issue is history, the reason stays true)", rel, line, text[m[0]:m[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files; the module has more (is root wrong?)", files)
	}
}

func TestIssueRefPattern(t *testing.T) {
	// "@" stands for the word, so that this file does not name an issue.
	word := func(s string) string { return strings.ReplaceAll(s, "@", "iss"+"ue") }
	for _, s := range []string{"(@ 12)", "@s #3's", "@s 4 and 5", "(@\n\t// 19 point 1)", "var @10 = 1", "(@#7)"} {
		if !issueRef.MatchString(word(s)) {
			t.Errorf("%q not matched", word(s))
		}
	}
	for _, s := range []string{"t@box 2", "the @'s exploration requirement", "an @ with 3 parts", "@: none"} {
		if issueRef.MatchString(word(s)) {
			t.Errorf("%q matched", word(s))
		}
	}
}
