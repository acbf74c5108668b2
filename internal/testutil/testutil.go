// Package testutil finds the repository's test data (testdata/) and decides
// how a test reacts when an external tool it needs is missing.
package testutil

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// RepoDir is the repository's root: the nearest directory at or above the
// working directory (a test runs in its package's directory) that holds
// go.mod. The test fails if there is none.
func RepoDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && st.Mode().IsRegular() {
			return dir
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	t.Fatalf("go.mod not found at or above %s: run the tests inside the repository", wd)
	return ""
}

// Path joins elem under the repository's root (RepoDir): the test data is
// Path(t, "testdata", ...), the repository's own copy (testdata/README.md).
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{RepoDir(t)}, elem...)...)
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

// WalletTx returns the transaction blob a wallet sent to monerod's
// /sendrawtransaction at line seq of a capture in
// testdata/regtest/wallet (e.g. "2-transfer.jsonl", 14): a real,
// valid transaction for the chain that scenario ran on.
func WalletTx(t testing.TB, file string, seq int) []byte {
	t.Helper()
	data, err := os.ReadFile(Path(t, "testdata", "regtest", "wallet", file))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		var ex struct {
			Seq         int    `json:"seq"`
			Path        string `json:"path"`
			RequestBody string `json:"request_body"`
		}
		if json.Unmarshal([]byte(line), &ex) != nil || ex.Seq != seq {
			continue
		}
		if ex.Path != "/sendrawtransaction" {
			t.Fatalf("%s line %d is %s, not /sendrawtransaction", file, seq, ex.Path)
		}
		var req struct {
			TxAsHex string `json:"tx_as_hex"`
		}
		if err := json.Unmarshal([]byte(ex.RequestBody), &req); err != nil {
			t.Fatalf("%s line %d: %v", file, seq, err)
		}
		blob, err := hex.DecodeString(req.TxAsHex)
		if err != nil {
			t.Fatalf("%s line %d: %v", file, seq, err)
		}
		return blob
	}
	t.Fatalf("%s has no line %d", file, seq)
	return nil
}

// Diff lists where two decoded JSON-like values (maps, slices, scalars)
// differ, one line per differing leaf: "path: gonero X, monerod Y" (leaves
// shortened to 200 characters). Equal values give none.
func Diff(path string, gonero, monerod any) []string {
	var out []string
	diff(path, gonero, monerod, &out)
	return out
}

func diff(path string, g, m any, out *[]string) {
	switch gv := g.(type) {
	case map[string]any:
		mv, ok := m.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range gv {
			keys[k] = true
		}
		for k := range mv {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			diff(path+"."+k, gv[k], mv[k], out)
		}
		return
	case []any:
		mv, ok := m.([]any)
		if !ok || len(mv) != len(gv) {
			break
		}
		for i := range gv {
			diff(fmt.Sprintf("%s[%d]", path, i), gv[i], mv[i], out)
		}
		return
	}
	if !reflect.DeepEqual(g, m) {
		short := func(v any) string {
			s, err := json.Marshal(v)
			if err != nil {
				s = []byte(fmt.Sprint(v))
			}
			if len(s) > 200 {
				return string(s[:200]) + "…"
			}
			return string(s)
		}
		*out = append(*out, fmt.Sprintf("%s: gonero %s, monerod %s", path, short(g), short(m)))
	}
}
