package docrefs

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gonero/gonero"

// pkgInfo is one package of the module as the tests here see it.
type pkgInfo struct {
	imports []string // import paths of its non-test files, sorted, deduplicated
	hasCode bool     // it has non-test files (a package of tests alone has none)
}

// modulePackages reads every package of the module from the tree without
// the go tool: a directory holding .go files is a package, named by its
// path below the module root ("chain", "crypto/cryptonight"), as go list
// sees them (testdata, vendor and directories starting with "." or "_" are
// skipped). Imports are those of the non-test files, build constraints
// ignored: a file built only on some platform still may not import upward.
func modulePackages(t *testing.T, root string) map[string]*pkgInfo {
	t.Helper()
	pkgs := map[string]*pkgInfo{}
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
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		p := pkgs[rel]
		if p == nil {
			p = &pkgInfo{}
			pkgs[rel] = p
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		p.hasCode = true
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		for _, is := range f.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			p.imports = append(p.imports, ip)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		sort.Strings(p.imports)
		p.imports = dedup(p.imports)
	}
	if len(pkgs) < 30 {
		t.Fatalf("only %d packages found under %s", len(pkgs), root)
	}
	return pkgs
}

func dedup(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// own returns the module-relative name of an import path of the module, or
// "" for anything else.
func own(importPath string) string {
	if importPath == module {
		return "."
	}
	if rest, ok := strings.CutPrefix(importPath, module+"/"); ok {
		return rest
	}
	return ""
}

// tableCell matches the package names of a row's first cell: `pkg`, `a`, `b`.
func rowPackages(cell string) []string {
	var out []string
	for {
		i := strings.IndexByte(cell, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(cell[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, cell[i+1:i+1+j])
		cell = cell[i+2+j:]
	}
}

// architectureRows returns the packages the rows of architecture.md's
// "Layout" table name, with the line of each.
func architectureRows(t *testing.T, path string) map[string]int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]int{}
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Layout"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		for _, p := range rowPackages(cells[1]) {
			rows[p] = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows found in the Layout table", path)
	}
	return rows
}

// covers reports whether a row's name stands for the package: the name
// itself, or "dir/..." for every package under dir.
func covers(row, pkg string) bool {
	if dir, ok := strings.CutSuffix(row, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return row == pkg
}

// TestArchitectureTableListsEveryPackage keeps the package table of
// docs/architecture.md whole: every package of the module has a row (a row
// "bench/..." stands for every package below bench), and every row names a
// package that exists.
func TestArchitectureTableListsEveryPackage(t *testing.T) {
	root := repoRoot(t)
	pkgs := modulePackages(t, root)
	rows := architectureRows(t, filepath.Join(root, "docs", "architecture.md"))
	for pkg := range pkgs {
		found := false
		for row := range rows {
			if covers(row, pkg) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("docs/architecture.md: package %s has no row in the Layout table", pkg)
		}
	}
	for row, line := range rows {
		found := false
		for pkg := range pkgs {
			if covers(row, pkg) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("docs/architecture.md:%d: the Layout table names %s, which is no package of the module", line, row)
		}
	}
	t.Logf("%d packages, %d rows", len(pkgs), len(rows))
}
