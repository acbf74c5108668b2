// Package testutil finds the project's shared test data and decides how a
// test reacts when an external tool it needs is missing.
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// SharedDir is the shared/ directory that sits beside the repository
// (override with GONERO_SHARED). The test fails if it cannot be found: the
// real vectors there are what the tests check against.
func SharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("GONERO_SHARED"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "shared", "testdata")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return filepath.Join(dir, "shared")
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	t.Fatalf("shared/ (test vectors) not found above %s; set GONERO_SHARED", wd)
	return ""
}

// Path joins elements under SharedDir.
func Path(t testing.TB, elem ...string) string {
	return filepath.Join(append([]string{SharedDir(t)}, elem...)...)
}

// InCI reports whether the test runs under CI (CI=true), where a missing
// external tool is a failure, never a skip.
func InCI() bool { return os.Getenv("CI") != "" }

// RequireTool returns the path of an external program. Missing in CI, the
// test fails; missing elsewhere, it is skipped with a message saying how to
// install it.
func RequireTool(t testing.TB, name, installHint string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if InCI() {
		t.Fatalf("%s is required in CI but not installed (%s)", name, installHint)
	}
	t.Skipf("%s not installed (%s); this test runs in CI", name, installHint)
	return ""
}

// RequireFile is RequireTool for a data file shipped by a package.
func RequireFile(t testing.TB, path, installHint string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	if InCI() {
		t.Fatalf("%s is required in CI but missing (%s)", path, installHint)
	}
	t.Skipf("%s missing (%s); this test runs in CI", path, installHint)
}
