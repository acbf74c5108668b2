package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

func readVectors(t testing.TB) []byte {
	b, err := os.ReadFile(testutil.Path(t, "testdata", "fcmp", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckVectors(t *testing.T) {
	b := readVectors(t)
	var out bytes.Buffer
	r, err := check(b, &out)
	if err != nil {
		t.Fatal(err)
	}
	if r.total < 200 || r.match != r.total {
		t.Fatalf("%+v\n%s", r, out.String())
	}
	// One changed value is one difference.
	i := bytes.Index(b, []byte(`"a+b":"`))
	bad := bytes.Clone(b)
	j := i + len(`"a+b":"`)
	if bad[j] == '0' {
		bad[j] = '1'
	} else {
		bad[j] = '0'
	}
	out.Reset()
	r2, err := check(bad, &out)
	if err != nil {
		t.Fatal(err)
	}
	if r2.total != r.total || r2.match != r.match-1 || !strings.Contains(out.String(), "DIFFERS") {
		t.Fatalf("tampered: %+v", r2)
	}
}

func TestCheckRefusesMalformed(t *testing.T) {
	for _, in := range []string{"", "[]", "{}", `{"generators":1}`, `{"helios":{"scalar_mul":[1]}}`} {
		if _, err := check([]byte(in), io.Discard); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add(readVectors(f))
	f.Add([]byte(`{"tree_hash":[{"curve":"Selene","children":["00"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = check(b, io.Discard)
	})
}

// TestCheckCases: every tampered 2x2 case gets the oracle's false; a case whose recorded verdict is
// flipped is one difference.
func TestCheckCases(t *testing.T) {
	b, err := os.ReadFile(testutil.Path(t, "testdata", "fcmp", "proofs", "fcmp_pp_prove_2x2_tampered.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r, err := check(b, &out)
	if err != nil || r.total != 12 || r.match != 12 {
		t.Fatalf("%+v %v\n%s", r, err, out.String())
	}
	b, err = os.ReadFile(testutil.Path(t, "testdata", "fcmp", "proofs", "fcmp_pp_prove_2x2.json"))
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if r, err := check(b, &out); err != nil || r.total != 1 || r.match != 1 {
		t.Fatalf("%+v %v\n%s", r, err, out.String())
	}
	flipped := bytes.Replace(b, []byte(`"verifies":true`), []byte(`"verifies":false`), 1)
	out.Reset()
	if r, err := check(flipped, &out); err != nil || r.total != 1 || r.match != 0 || !strings.Contains(out.String(), "DIFFERS") {
		t.Fatalf("flipped verdict: %+v %v\n%s", r, err, out.String())
	}
}
