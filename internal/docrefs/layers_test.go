package docrefs

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// layers are the layers of docs/architecture.md ("What each layer must not
// know"), lowest first. A package may import (outside its tests) packages of
// lower layers only: two packages of one layer never import each other, so
// P2P and RPC, side by side, know nothing of each other.
var layers = []struct {
	name string
	pkgs []string
}{
	// membudget: the node's memory budget, which the HTTP server (a leaf)
	// and P2P draw on; internal/addrgroup: who a client is for the
	// connection limits of the HTTP and the ZMQ RPC. They import nothing
	// of the module.
	{"foundations", []string{"membudget", "internal/addrgroup"}},
	{"leaves: codec, primitives, wire formats, HTTP", []string{
		"cryptonote", "crypto", "crypto/cryptonight/internal/groestl", "crypto/cryptonight/internal/jh", "ringct/internal/msm",
		"internal/u128", "internal/boundedcache", "pruning", "randomx",
		"epeejson", "httpd", "levin", "portable", "peerinfo", "dnstxt", "socks",
		"internal/testutil", "internal/sockstest", "internal/dnstest", "internal/docrefs",
		"fcmp/helioselene", "crypto/blake2bp", "fcmp/transcript",
	}},
	{"above the codec: proofs, PoW, networks, export files, zones", []string{
		"ringct", "crypto/cryptonight", "params", "params/blockhashes", "chainexport", "anonaddr",
		"internal/monerodlab", "internal/rpcbombs", "fcmp/ec", "fcmp/gbp",
		// carrot: Carrot addressing (FCMP++ fork), over crypto; nothing
		// imports it until version 17's rules are known.
		"carrot",
	}},
	{"rules and store, side by side", []string{"consensus", "chaindb", "address", "fcmp/tree", "fcmp/fcmppp", "fcmp/divisor"}},
	// rpctypes: the RPC's request and answer values, shared by the server
	// and the operator commands' client; it may use the store's values but
	// not the chain, and never the HTTP server (see never).
	{"chain", []string{"chain", "rpctypes"}},
	{"users of the chain", []string{"txpool", "importer", "feeestimate"}},
	{"users of the pool", []string{"miner", "metrics", "zmqpub"}},
	{"P2P and RPC, side by side", []string{"p2p", "rpc", "zmqrpc", "daemonctl"}},
	// node (coming): cmd/gonerod's wiring as a package.
	{"the node", []string{"node"}},
	{"commands and tools", []string{"cmd/gonerod", "cmd/fcmpcheck", "internal/monerodlab/cmd/monerodlab", "bench/..."}},
}

// pending are packages the table places that other branches are adding;
// the test passes without them.
var pending = map[string]bool{
	"node": true,
	// FCMP++: the Helios/Selene curve cycle (a leaf), the Ed25519 side
	// (over crypto) and the curve tree (over both).
	"fcmp/helioselene": true, "fcmp/ec": true, "fcmp/tree": true,
}

// never are dependencies a package may not have at all, directly or
// through any package of the module it imports: module packages by name,
// other modules by import path prefix. They add to the layers what the
// layers alone allow.
var never = map[string][]string{
	// p2p shares peer values through peerinfo; the HTTP server (and
	// fasthttp), epee JSON and the miner are the RPC's.
	"p2p":      {"httpd", "epeejson", "miner", "github.com/valyala/fasthttp"},
	"rpctypes": {"httpd", "github.com/valyala/fasthttp"},
}

// seams are modules only one package of ours may import (outside tests):
// curve25519-voi sits behind ringct/internal/msm, which Go's internal rule
// keeps to ringct; everything else computes on filippo.io/edwards25519.
var seams = map[string]string{"github.com/oasisprotocol/curve25519-voi": "ringct/internal/msm"}

// testHelpers are imported by tests and tools only, never by the node.
var testHelpers = []string{"internal/testutil", "internal/monerodlab", "internal/sockstest", "internal/dnstest", "internal/rpcbombs"}

func isTestHelper(p string) bool {
	for _, h := range testHelpers {
		if p == h {
			return true
		}
	}
	return false
}

// layerOf returns the layer index of a package, or -1.
func layerOf(pkg string) int {
	for i, l := range layers {
		for _, p := range l.pkgs {
			if covers(p, pkg) {
				return i
			}
		}
	}
	return -1
}

// checkLayers returns what is wrong with a module's import graph (module
// package → its imports); it is the test's logic, separate so that it can
// be tested on made-up graphs.
func checkLayers(pkgs map[string]*pkgInfo) []string {
	var problems []string
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		lp := layerOf(p)
		if lp < 0 {
			problems = append(problems, fmt.Sprintf("%s is in no layer: add it to internal/docrefs' layers (and docs/architecture.md)", p))
			continue
		}
		for _, ip := range pkgs[p].imports {
			q := own(ip)
			if q == "" {
				for mod, door := range seams {
					if (ip == mod || strings.HasPrefix(ip, mod+"/")) && p != door {
						problems = append(problems, fmt.Sprintf("%s imports %s: only %s may", p, ip, door))
					}
				}
				continue
			}
			lq := layerOf(q)
			if lq >= lp {
				problems = append(problems, fmt.Sprintf("%s (layer %q) imports %s (layer %q): only lower layers may be imported", p, layers[lp].name, q, layerName(lq)))
			}
		}
	}
	// Dependencies through the module: the packages reached, and the
	// imports from other modules of each.
	for _, p := range names {
		tools := layerOf(p) == len(layers)-1
		deps := closure(pkgs, p)
		for _, bad := range never[p] {
			for _, d := range deps {
				if d == bad {
					problems = append(problems, fmt.Sprintf("%s depends on %s", p, bad))
				}
				if own(bad) == "" && strings.Contains(bad, ".") {
					for _, ip := range pkgs[d].imports {
						if ip == bad || strings.HasPrefix(ip, bad+"/") {
							problems = append(problems, fmt.Sprintf("%s depends on %s (through %s)", p, ip, d))
						}
					}
				}
			}
		}
		if !tools && !isTestHelper(p) && pkgs[p].hasCode {
			for _, d := range deps {
				for _, h := range testHelpers {
					if d == h {
						problems = append(problems, fmt.Sprintf("%s depends on the test helper %s", p, h))
					}
				}
			}
		}
	}
	return problems
}

func layerName(i int) string {
	if i < 0 {
		return "none"
	}
	return layers[i].name
}

// closure returns p and every module package it depends on, sorted.
func closure(pkgs map[string]*pkgInfo, p string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(q string) {
		if seen[q] {
			return
		}
		seen[q] = true
		if info := pkgs[q]; info != nil {
			for _, ip := range info.imports {
				if o := own(ip); o != "" {
					walk(o)
				}
			}
		}
	}
	walk(p)
	out := make([]string, 0, len(seen))
	for q := range seen {
		if pkgs[q] != nil {
			out = append(out, q)
		}
	}
	sort.Strings(out)
	return out
}

// TestLayers checks the imports between the module's packages against the
// layers: nothing imports upward or sideways, p2p and rpctypes avoid what
// never lists, and only tools import the test helpers.
func TestLayers(t *testing.T) {
	pkgs := modulePackages(t, repoRoot(t))
	for _, p := range checkLayers(pkgs) {
		t.Error(p)
	}
	// Every package the table names exists, or is one another branch adds.
	for _, l := range layers {
		for _, name := range l.pkgs {
			found := false
			for p := range pkgs {
				if covers(name, p) {
					found = true
				}
			}
			if !found && !pending[name] {
				t.Errorf("the layer %q names %s, which is no package of the module", l.name, name)
			}
		}
	}
}

// TestCheckLayers checks the checker on graphs it must accept and refuse.
func TestCheckLayers(t *testing.T) {
	graph := func(edges ...string) map[string]*pkgInfo {
		g := map[string]*pkgInfo{}
		for _, e := range edges {
			from, to, _ := strings.Cut(e, "->")
			if g[from] == nil {
				g[from] = &pkgInfo{hasCode: true}
			}
			if to != "" {
				if own(to) == "" && !strings.Contains(to, ".") {
					to = module + "/" + to
				}
				g[from].imports = append(g[from].imports, to)
			}
		}
		return g
	}
	for _, tc := range []struct {
		name  string
		g     map[string]*pkgInfo
		wrong int
	}{
		{"downward", graph("chain->chaindb", "chaindb->cryptonote", "cryptonote"), 0},
		{"upward", graph("chaindb->chain", "chain"), 1},
		{"sideways", graph("p2p->rpc", "rpc"), 1},
		{"unplaced", graph("newpkg"), 1},
		{"p2p to the miner", graph("p2p->miner", "miner"), 1},
		{"p2p to fasthttp through httpd", graph("p2p->httpd", "httpd->github.com/valyala/fasthttp"), 2},
		{"node to the test helpers", graph("chain->internal/testutil", "internal/testutil"), 1},
		{"tool to the test helpers", graph("bench/x->internal/monerodlab", "internal/monerodlab->internal/testutil", "internal/testutil"), 0},
		{"rpctypes to the HTTP server", graph("rpctypes->httpd", "httpd"), 1},
		{"node to everything", graph("node->rpc", "node->p2p", "rpc", "p2p"), 0},
		{"node to the command", graph("node->cmd/gonerod", "cmd/gonerod"), 1},
		{"curve25519-voi through its seam", graph("ringct->ringct/internal/msm", "ringct/internal/msm->github.com/oasisprotocol/curve25519-voi/curve"), 0},
		{"curve25519-voi past its seam", graph("ringct->github.com/oasisprotocol/curve25519-voi/curve/scalar"), 1},
	} {
		if got := checkLayers(tc.g); len(got) != tc.wrong {
			t.Errorf("%s: %d problems %q, want %d", tc.name, len(got), got, tc.wrong)
		}
	}
}
