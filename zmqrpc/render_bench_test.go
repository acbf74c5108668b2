package zmqrpc

import (
	"bytes"
	"testing"

	"github.com/gonero/gonero/internal/monerodlab"
)

// BenchmarkGetBlocksFastRender renders get_blocks_fast of the whole chain
// (up to its 1,000-block bound) in process, the block cache warm, as a
// light-wallet server's repeated sync or a flood of it (issue 33) makes
// the server do: what is measured is putting the cached pieces together,
// bytes and allocations per answer. GONERO_FRESH_CHAIN may name a
// bigger chain (the heavy one of bench/abuse.sh).
func BenchmarkGetBlocksFastRender(b *testing.B) {
	lab := monerodlab.Require(b)
	fresh := lab.FreshChain(b)
	c, pool := openChain(b, fresh.RawFile, 0)
	s, err := New(Config{Addr: "127.0.0.1:0"}, Backend{Chain: NewChainSource(c), Pool: NewPoolSource(pool)})
	if err != nil {
		b.Fatal(err)
	}
	gen := c.HashAt(0).String()
	for _, prune := range []string{"true", "false"} {
		b.Run("prune="+prune, func(b *testing.B) {
			req := []byte(`{"jsonrpc":"2.0","id":1,"method":"get_blocks_fast","params":{"block_ids":["` + gen + `"],"start_height":0,"prune":` + prune + `}}`)
			first := s.handle(req)
			if !bytes.Contains(first, []byte(`"output_indices"`)) {
				b.Fatalf("%s", clip(string(first)))
			}
			b.SetBytes(int64(len(first)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if a := s.handleParts(req); a.size() != len(first) {
					b.Fatalf("answer of %d bytes, then %d", len(first), a.size())
				}
			}
		})
	}
}
