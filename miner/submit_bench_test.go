package miner

import (
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/randomx"
)

// BenchmarkSubmit is a pool's submit_block without the RPC: a block solved
// at difficulty 16 (its nonce search not timed) goes through Submit, its
// proof of work hashed once (light mode) and the block stored (one fsync).
func BenchmarkSubmit(b *testing.B) {
	rx, err := randomx.New(randomx.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer rx.Close()
	c := openChain(b, 16, rx, nil)
	m := New(c, Options{Workers: 1})
	to := testAddress(b)
	for b.Loop() {
		b.StopTimer()
		tpl, err := m.NewTemplate(to)
		if err != nil {
			b.Fatal(err)
		}
		if err := m.Solve(b.Context(), tpl, 0); err != nil {
			b.Fatal(err)
		}
		blob := tpl.Block.Serialize()
		blk, err := cryptonote.ParseBlock(blob)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := m.Submit(blk, blob); err != nil {
			b.Fatal(err)
		}
	}
}
