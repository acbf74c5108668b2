package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/spf13/pflag"
)

// docFlag is a flag name as docs/flags.md writes it: `--name`, or the
// first word of `--name VALUE`.
var docFlag = regexp.MustCompile("--([a-z0-9][a-z0-9-]*)")

// TestFlagsDocumented keeps docs/flags.md and gonerod's flags in step: every
// flag the node's command line accepts (hidden ones aside) is named there,
// and every flag named there is one gonerod accepts. The document may
// describe a flag in another file it links to, but it names it.
func TestFlagsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "flags.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range docFlag.FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = true
	}
	root := newRootCommand()
	accepted := map[string]bool{}
	hidden := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			hidden[f.Name] = true
			return
		}
		accepted[f.Name] = true
	}
	root.Flags().VisitAll(visit)
	root.PersistentFlags().VisitAll(visit)
	if len(accepted) < 50 {
		t.Fatalf("only %d flags found on the root command", len(accepted))
	}
	var missing, unknown []string
	for name := range accepted {
		if !documented[name] {
			missing = append(missing, name)
		}
	}
	for name := range documented {
		if !accepted[name] && !hidden[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(unknown)
	for _, name := range missing {
		t.Errorf("--%s is a flag of gonerod that docs/flags.md does not name", name)
	}
	for _, name := range unknown {
		t.Errorf("docs/flags.md names --%s, which gonerod does not accept", name)
	}
	t.Logf("%d flags, all documented", len(accepted))
}
