package docrefs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// testFuncs returns the test, fuzz and benchmark functions of the module's
// *_test.go files (name → how many packages define one), and the number of
// fuzz targets, counted as scripts/test.sh counts them: one per package and
// name.
func testFuncs(t *testing.T, root string) (names map[string]int, fuzzTargets int) {
	t.Helper()
	names = map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if path != root && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			name := fn.Name.Name
			for _, prefix := range []string{"Test", "Fuzz", "Benchmark"} {
				if strings.HasPrefix(name, prefix) {
					names[name]++
					if prefix == "Fuzz" {
						fuzzTargets++
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names, fuzzTargets
}

var (
	// namedTest is a test function a document names: `TestX`, `FuzzX`,
	// `BenchmarkX`.
	namedTest = regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)`")
	// fuzzCount is docs/tests.md's count of fuzz targets: "(76 targets".
	fuzzCount = regexp.MustCompile(`\((\d+) targets`)
)

// TestTestsDocMatchesTree keeps what the documents say of the tests true:
// every test, fuzz target or benchmark a document of docs/ (or the README or
// contributing guide) names is a function of a *_test.go file, and
// docs/tests.md's count of fuzz targets is the tree's.
func TestTestsDocMatchesTree(t *testing.T) {
	root := repoRoot(t)
	names, fuzzTargets := testFuncs(t, root)
	if fuzzTargets == 0 || len(names) < 100 {
		t.Fatalf("found %d test functions and %d fuzz targets: the walk is wrong", len(names), fuzzTargets)
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"))
	named := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, m := range namedTest.FindAllStringSubmatch(string(b), -1) {
			named++
			if names[m[1]] == 0 {
				t.Errorf("%s names %s, which no *_test.go defines", rel, m[1])
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "tests.md"))
	if err != nil {
		t.Fatal(err)
	}
	counts := fuzzCount.FindAllStringSubmatch(string(b), -1)
	if len(counts) != 1 {
		t.Fatalf("docs/tests.md: want one \"(N targets\" count of the fuzz targets, found %d", len(counts))
	}
	if n, _ := strconv.Atoi(counts[0][1]); n != fuzzTargets {
		t.Errorf("docs/tests.md says %d fuzz targets; the tree has %d (func Fuzz... in *_test.go, one per package and name)", n, fuzzTargets)
	}
	t.Logf("%d test functions (%d fuzz targets); the documents name %d", len(names), fuzzTargets, named)
}
