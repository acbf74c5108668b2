package helioselene

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated files from their templates")

// generated maps each generated file to its template and the renaming that turns one into the other:
// the Helioselene field is the 2^255-19 field's code with other constants, Selene is Helios with the
// two fields swapped.
var generated = []struct {
	template, out string
	rename        func(string) string
}{
	{"field25519.go", "fieldhs.go", func(s string) string {
		s = strings.ReplaceAll(s, "Field25519", "HelioseleneField")
		s = strings.ReplaceAll(s, "p25519", "pHS")
		return s
	}},
	{"helios.go", "selene.go", heliosToSelene},
	{"helios_msm.go", "selene_msm.go", heliosToSelene},
}

func heliosToSelene(s string) string {
	s = strings.ReplaceAll(s, "helioselene", "\x00H\x00")
	s = strings.ReplaceAll(s, "HelioseleneField", "\x00Q\x00")
	s = strings.ReplaceAll(s, "Field25519", "\x00P\x00")
	s = strings.ReplaceAll(s, "Helios", "Selene")
	s = strings.ReplaceAll(s, "helios", "selene")
	s = strings.ReplaceAll(s, "\x00Q\x00", "Field25519")
	s = strings.ReplaceAll(s, "\x00P\x00", "HelioseleneField")
	s = strings.ReplaceAll(s, "\x00H\x00", "helioselene")
	return s
}

func header(template string) string {
	return "// Code generated from " + template + " by gen_test.go (go test -run TestGeneratedInSync -update); DO NOT EDIT.\n\n"
}

func TestGeneratedInSync(t *testing.T) {
	for _, g := range generated {
		src, err := os.ReadFile(g.template)
		if err != nil {
			t.Fatal(err)
		}
		body := string(src)
		// The template's leading comment block is replaced by the generated-code header.
		if i := strings.Index(body, "package "); i >= 0 {
			body = body[i:]
		}
		want := header(g.template) + g.rename(body)
		if *update {
			if err := os.WriteFile(g.out, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(g.out)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is out of date with %s: go test -run TestGeneratedInSync -update", g.out, g.template)
		}
	}
}
