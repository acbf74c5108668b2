package fcmppp

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated files from their templates")

// heliosToSelene swaps the curves and their fields, as fcmp/helioselene's generator does.
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

var generated = []struct{ template, out string }{
	{"circuit_helios.go", "circuit_selene.go"},
}

func TestGeneratedInSync(t *testing.T) {
	for _, g := range generated {
		src, err := os.ReadFile(g.template)
		if err != nil {
			t.Fatal(err)
		}
		body := string(src)
		if i := strings.Index(body, "package "); i >= 0 {
			body = body[i:]
		}
		want := "// Code generated from " + g.template + " by gen_test.go (go test -run TestGeneratedInSync -update); DO NOT EDIT.\n\n" + heliosToSelene(body)
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
