package consensus

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// docs/tx-verification.md §9 indexes every rule code: a table row per code,
// with its text as String gives it.
func TestRuleIndexInDocs(t *testing.T) {
	doc, err := os.ReadFile(testutil.Path(t, "docs", "tx-verification.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "## 9. Rule codes")
	if i < 0 {
		t.Fatal("docs/tx-verification.md has no §9 Rule codes")
	}
	text = text[i:]
	f, err := parser.ParseFile(token.NewFileSet(), "rules.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]Rule{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				if strings.HasPrefix(n.Name, "Rule") {
					codes[n.Name] = 0
				}
			}
		}
	}
	if len(codes) != len(Rules()) {
		t.Fatalf("rules.go declares %d codes, Rules() lists %d", len(codes), len(Rules()))
	}
	for name := range codes {
		if !strings.Contains(text, "| `"+name+"` |") {
			t.Errorf("%s has no row in docs/tx-verification.md §9", name)
		}
	}
	for _, r := range Rules() {
		if !strings.Contains(text, "` | "+r.String()+" | ") {
			t.Errorf("no row of §9 gives %q", r)
		}
	}
}
