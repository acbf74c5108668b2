// Package docrefs holds the tests that keep the documentation true to the
// code. The code's comments point at documentation that exists: every
// "docs/<name>.md" a comment names must be a file of this repository, every
// "§N.M" must follow such a name on the same comment line, and the section
// must be a heading of that file. The relative links of README.md,
// CONTRIBUTING.md and docs/ resolve. docs/architecture.md's package table
// lists every package, and the imports between packages follow its layers
// (layers_test.go). The tests the documents name exist, and docs/tests.md
// counts the fuzz targets right. (docs/flags.md is checked against the
// flags in cmd/gonerod, whose command it needs.)
package docrefs

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	docRef  = regexp.MustCompile(`docs/[A-Za-z0-9_-]+\.md`)
	section = regexp.MustCompile(`§\s*([0-9]+(?:\.[0-9]+)*)`)
	heading = regexp.MustCompile(`^#+\s+([0-9]+(?:\.[0-9]+)*)[.\s]`)
)

// repoRoot is the directory holding go.mod, found from this package upwards.
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// sections returns the section numbers of a markdown file's headings.
func sections(t *testing.T, path string) map[string]bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			out[m[1]] = true
		}
	}
	return out
}

func TestCommentReferencesResolve(t *testing.T) {
	root := repoRoot(t)
	docs := map[string]map[string]bool{} // file → its sections; nil if missing
	lookup := func(ref string) map[string]bool {
		if s, ok := docs[ref]; ok {
			return s
		}
		var s map[string]bool
		if st, err := os.Stat(filepath.Join(root, ref)); err == nil && !st.IsDir() {
			s = sections(t, filepath.Join(root, ref))
		}
		docs[ref] = s
		return s
	}
	files, refs := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, path)
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				for i, line := range strings.Split(c.Text, "\n") {
					pos := fset.Position(c.Slash)
					where := fmt.Sprintf("%s:%d", rel, pos.Line+i)
					n, problems := checkLine(line, lookup)
					refs += n
					for _, p := range problems {
						t.Errorf("%s: %s", where, p)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no Go files found")
	}
	t.Logf("%d Go files, %d documentation references", files, refs)
}

// checkLine checks one comment line; it returns how many references the line
// holds and what is wrong with them.
func checkLine(line string, lookup func(string) map[string]bool) (n int, problems []string) {
	docAt := docRef.FindAllStringIndex(line, -1)
	for _, m := range docAt {
		ref := line[m[0]:m[1]]
		n++
		if lookup(ref) == nil {
			problems = append(problems, ref+" does not exist")
		}
	}
	for _, m := range section.FindAllStringSubmatchIndex(line, -1) {
		// The section belongs to the nearest docs/<name>.md before it.
		ref := ""
		for _, d := range docAt {
			if d[1] <= m[0] {
				ref = line[d[0]:d[1]]
			}
		}
		num := line[m[2]:m[3]]
		if ref == "" {
			problems = append(problems, fmt.Sprintf("§%s names no docs/<name>.md before it on the line: %q", num, strings.TrimSpace(line)))
			continue
		}
		if s := lookup(ref); s != nil && !s[num] {
			problems = append(problems, fmt.Sprintf("%s has no heading §%s", ref, num))
		}
	}
	return n, problems
}

// TestCheckLine checks the checker on lines it must accept and refuse.
func TestCheckLine(t *testing.T) {
	lookup := func(ref string) map[string]bool {
		if ref == "docs/a.md" {
			return map[string]bool{"1": true, "2.3": true}
		}
		return nil
	}
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"see docs/a.md §2.3 and §1", true},
		{"no references at all", true},
		{"docs/a.md, 'Block header'", true},
		{"bare (§2.3)", false},
		{"§1 before docs/a.md", false},
		{"docs/b.md §1", false},
		{"docs/a.md §4", false},
	} {
		_, problems := checkLine(tc.line, lookup)
		if (len(problems) == 0) != tc.ok {
			t.Errorf("%q: problems %q, want ok=%v", tc.line, problems, tc.ok)
		}
	}
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`^#+\s+(.*)$`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// slug is the anchor GitHub gives a heading: lower case, punctuation dropped,
// spaces turned into hyphens.
func slug(heading string) string {
	s := strings.ToLower(strings.TrimSpace(heading))
	s = slugDrop.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, " ", "-")
}

// anchors returns the heading anchors of a markdown file.
func anchors(t *testing.T, path string) map[string]bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil && !inCode {
			out[slug(m[1])] = true
		}
	}
	return out
}

// TestMarkdownLinksResolve checks that every relative link of the README, the
// contributing guide and docs/ names a file of the repository, and a heading
// of it when the link has an anchor.
func TestMarkdownLinksResolve(t *testing.T) {
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"))
	links := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
			}
			st, err := os.Stat(dest)
			if err != nil {
				t.Errorf("%s: link %s: %v", rel, target, err)
				continue
			}
			if anchor != "" && !st.IsDir() && strings.HasSuffix(dest, ".md") && !anchors(t, dest)[anchor] {
				t.Errorf("%s: link %s: no heading with that anchor", rel, target)
			}
		}
	}
	if links == 0 {
		t.Fatal("no links found")
	}
	t.Logf("%d relative links", links)
}
