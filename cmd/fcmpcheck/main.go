// Command fcmpcheck reads fcmp-oracle's `vectors` output (the developers' oracle tool; testdata/fcmp/README.md)
// and prints, for each value (arithmetic, encodings, hashes, tree, divisor, proof sizes, the sample proof's
// verdict), whether gonero's fcmp packages reproduce it, ending with "N/M match". It also reads the proof
// cases of the oracle's `prove` (an object, an array, or several in a row) and prints, for each,
// whether gonero's verdict is the case's `verifies`. Vectors and cases made with another seed, or by a
// newer reference revision, can be checked the same way:
//
//	go run ./cmd/fcmpcheck testdata/fcmp/vectors.json testdata/fcmp/proofs/fcmp_pp_prove_2x2.json
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fcmpcheck VECTORS_OR_CASES.json...")
		os.Exit(2)
	}
	ok := true
	for _, name := range os.Args[1:] {
		b, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		r, err := check(b, os.Stdout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(2)
		}
		fmt.Printf("%s: %d/%d match (%d differ)\n", name, r.match, r.total, r.total-r.match)
		if r.match != r.total {
			ok = false
		}
	}
	if !ok {
		os.Exit(1)
	}
}

type result struct{ match, total int }

// checker compares computed values with the oracle's and writes one line per value.
type checker struct {
	w   io.Writer
	res result
	err error // the first structural problem (a missing key, bad hex)
}

func (c *checker) eq(name, got, want string) {
	c.res.total++
	if got == want {
		c.res.match++
		fmt.Fprintf(c.w, "ok      %s\n", name)
		return
	}
	fmt.Fprintf(c.w, "DIFFERS %s: got %s, want %s\n", name, got, want)
}

func (c *checker) fail(format string, a ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, a...)
	}
}

// obj is a JSON object with typed accessors that record the first structural problem.
type obj struct {
	c *checker
	m map[string]any
	p string
}

func (o obj) get(k string) any {
	v, ok := o.m[k]
	if !ok {
		o.c.fail("%s: missing %q", o.p, k)
	}
	return v
}

func (o obj) str(k string) string {
	s, ok := o.get(k).(string)
	if !ok {
		o.c.fail("%s.%s: not a string", o.p, k)
	}
	return s
}

func (o obj) bytes(k string) []byte {
	b, err := hex.DecodeString(o.str(k))
	if err != nil {
		o.c.fail("%s.%s: %v", o.p, k, err)
	}
	return b
}

func (o obj) obj(k string) obj {
	m, ok := o.get(k).(map[string]any)
	if !ok {
		o.c.fail("%s.%s: not an object", o.p, k)
	}
	return obj{o.c, m, o.p + "." + k}
}

func (o obj) list(k string) []obj {
	a, ok := o.get(k).([]any)
	if !ok {
		o.c.fail("%s.%s: not a list", o.p, k)
	}
	var out []obj
	for i, v := range a {
		m, ok := v.(map[string]any)
		if !ok {
			o.c.fail("%s.%s[%d]: not an object", o.p, k, i)
			continue
		}
		out = append(out, obj{o.c, m, fmt.Sprintf("%s.%s[%d]", o.p, k, i)})
	}
	return out
}

func (o obj) strs(k string) []string {
	a, ok := o.get(k).([]any)
	if !ok {
		o.c.fail("%s.%s: not a list", o.p, k)
	}
	var out []string
	for _, v := range a {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// keys returns the object's keys with the given prefix (for keys that carry their arguments).
func (o obj) keys(prefix string) []string {
	var out []string
	for k := range o.m {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func check(data []byte, w io.Writer) (result, error) {
	if isCases(data) {
		c := &checker{w: w}
		checkCases(data, c)
		return c.res, c.err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return result{}, err
	}
	c := &checker{w: w}
	root := obj{c, m, "vectors"}
	checkEd25519(c, root)
	checkCurves(c, root)
	checkTree(c, root)
	checkDivisor(c, root.obj("divisor"))
	checkProofSizes(c, root)
	f := root.obj("fcmp_pp")
	if want, ok := f.get("verifies").(bool); ok && c.err == nil {
		c.eq("fcmp_pp.verifies", fmt.Sprint(verdict(f)), fmt.Sprint(want))
	}
	return c.res, c.err
}

func hexs(b []byte) string { return hex.EncodeToString(b) }

func hexDecode(s string) ([]byte, error) { return hex.DecodeString(s) }
