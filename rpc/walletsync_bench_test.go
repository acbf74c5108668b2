package rpc

import (
	"math/rand"
	"os"
	"slices"
	"testing"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/rpctypes"
)

// The cost of the three busiest wallet-sync answers without HTTP, on the
// heavy chain (GONERO_HEAVY_CHAIN, default /tmp/heavy/h2000/blockchain.raw:
// 2,000 varied transactions; skipped without it). Run with -cpuprofile to
// see where it goes; bench/wallet-endpoints.sh measures them over HTTP
// against monerod.
func benchWalletSync(b *testing.B, path string, bodies func(n *testNode) [][]byte) {
	file := os.Getenv("GONERO_HEAVY_CHAIN")
	if file == "" {
		file = "/tmp/heavy/h2000/blockchain.raw"
	}
	if _, err := os.Stat(file); err != nil {
		b.Skipf("no heavy chain at %s (bench/lab.sh buildheavy /tmp/heavy/h2000)", file)
	}
	node := startNode(b, file, nil)
	h := endpoints.paths[path].path
	reqs := bodies(node)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		resp := h(node.srv, &httpd.Request{HTTPMethod: "POST", Path: path, Body: reqs[i%len(reqs)]})
		if resp.Status != 0 || len(resp.Body) == 0 {
			b.Fatalf("answer %d, %d bytes", resp.Status, len(resp.Body))
		}
		i++
	}
}

func BenchmarkWalletGetOutsBin(b *testing.B) {
	benchWalletSync(b, "/get_outs.bin", func(n *testNode) [][]byte {
		var count uint64
		_ = n.chain.Store().View(func(r *chaindb.Reader) error { count, _ = r.OutputCount(0); return nil })
		rng := rand.New(rand.NewSource(1))
		var out [][]byte
		for k := 0; k < 64; k++ {
			idx := make([]uint64, 150)
			for i := range idx {
				idx[i] = uint64(rng.Int63n(int64(count)))
			}
			slices.Sort(idx)
			refs := make([]rpctypes.OutputRef, len(idx))
			for i, x := range idx {
				refs[i] = rpctypes.OutputRef{Amount: 0, Index: x}
			}
			var s portable.Section
			s.Set("client", portable.NewString(string(make([]byte, 208))))
			s.Set("get_txid", portable.NewBool(false))
			s.Set("outputs", outsValue(refs))
			body, _ := portable.Encode(s)
			out = append(out, body)
		}
		return out
	})
}

func BenchmarkWalletDistributionBin(b *testing.B) {
	benchWalletSync(b, "/get_output_distribution.bin", func(*testNode) [][]byte {
		var s portable.Section
		s.Set("amounts", u64s(0))
		s.Set("compress", portable.NewBool(true))
		body, _ := portable.Encode(s)
		return [][]byte{body}
	})
}

func BenchmarkWalletGetBlocksBin(b *testing.B) {
	benchWalletSync(b, "/getblocks.bin", func(n *testNode) [][]byte {
		g := n.chain.HashAt(0)
		var s portable.Section
		s.Set("block_ids", portable.NewBlob(g[:]))
		s.Set("prune", portable.NewBool(true))
		body, _ := portable.Encode(s)
		return [][]byte{body}
	})
}
