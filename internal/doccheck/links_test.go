package doccheck

import (
	"bufio"
	"bytes"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the module root, from this package's folder.
const root = "../.."

// markdownFiles lists README.md and every Markdown file under docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	// inlineLink matches [text](target) and ![alt](target); the target
	// ends at the first space (a title may follow) or closing parenthesis.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)[^)]*\)`)
	// refLink matches a reference definition: [label]: target.
	refLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+(\S+)`)
	// codeSpan matches inline code, whose text is not a link.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
)

// link is one link found in a Markdown file.
type link struct {
	line   int
	target string
}

// links returns the links of a Markdown file outside code blocks and code
// spans.
func links(text []byte) []link {
	var out []link
	fence := ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{n, strings.Trim(m[1], "<>")})
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			out = append(out, link{n, m[1]})
		}
	}
	return out
}

// anchors returns the anchors GitHub gives the headings of a Markdown
// file: the heading's text lower-cased, without punctuation but hyphens
// and underscores, spaces turned into hyphens; repeats get -1, -2, ...
func anchors(text []byte) map[string]bool {
	out := map[string]bool{}
	fence := ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		trimmed := strings.TrimSpace(sc.Text())
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if !strings.HasPrefix(trimmed, "#") {
			continue
		}
		heading := strings.TrimLeft(trimmed, "#")
		if heading == trimmed || (heading != "" && heading[0] != ' ') {
			continue
		}
		slug := slugify(heading)
		a := slug
		for i := 1; out[a]; i++ {
			a = slug + "-" + strconv.Itoa(i)
		}
		out[a] = true
	}
	return out
}

func slugify(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestLinksResolve: every relative link in README.md and docs/ names a
// file or folder that exists, and a #anchor into a Markdown file names one
// of its headings.
func TestLinksResolve(t *testing.T) {
	files := markdownFiles(t)
	if len(files) < 5 {
		t.Fatalf("found %d Markdown files; README.md and docs/ should hold more", len(files))
	}
	checked := 0
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, l := range links(text) {
			u, err := url.Parse(l.target)
			if err != nil {
				t.Errorf("%s:%d: link %q does not parse: %v", rel, l.line, l.target, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue // http(s), mailto: not checked here
			}
			target := file
			if u.Path != "" {
				target = filepath.Join(filepath.Dir(file), filepath.FromSlash(u.Path))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: link %q: no such file or folder", rel, l.line, l.target)
					continue
				}
			}
			checked++
			if u.Fragment == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			body, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s:%d: link %q: %v", rel, l.line, l.target, err)
				continue
			}
			if !anchors(body)[strings.ToLower(u.Fragment)] {
				t.Errorf("%s:%d: link %q: no heading with anchor #%s in %s", rel, l.line, l.target, u.Fragment, filepath.Base(target))
			}
		}
	}
	t.Logf("%d relative links in %d files resolve", checked, len(files))
	if checked < 20 {
		t.Errorf("checked %d relative links; the docs link to each other more than that (is the link pattern wrong?)", checked)
	}
}

func TestLinksAndAnchorsParse(t *testing.T) {
	text := []byte("# Top\n\nSee [a](a.md#x-y) and ![img](p.png \"t\"), not `[b](b.md)`.\n" +
		"```\n[c](c.md)\n## Not a heading\n```\n" +
		"[ref]: d.md\n## Near-ties at evaluation (`-tie-margin`)\n## Top\n")
	var got []string
	for _, l := range links(text) {
		got = append(got, l.target)
	}
	if strings.Join(got, " ") != "a.md#x-y p.png d.md" {
		t.Errorf("links = %q", got)
	}
	a := anchors(text)
	for _, want := range []string{"top", "near-ties-at-evaluation--tie-margin", "top-1"} {
		if !a[want] {
			t.Errorf("anchors %v lack %q", a, want)
		}
	}
	if a["not-a-heading"] {
		t.Error("a heading inside a code block counted")
	}
}
