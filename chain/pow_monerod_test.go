package chain_test

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/randomx"
)

// monerod mines a chain at a real (fixed) difficulty of 20; gonero checks
// every block's RandomX proof of work and accepts them all, with monerod's
// difficulties. A copy of the last block with another nonce fails the
// check, and monerod refuses that same blob too.
func TestRandomXProofOfWorkAgainstMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	const difficulty = 20
	m := lab.StartMonerodDirect(t, "--fixed-difficulty", "20")
	var gen struct {
		Height uint64 `json:"height"`
	}
	if err := m.Call("generateblocks", map[string]any{"amount_of_blocks": 24, "wallet_address": monerodlab.AliceAddress}, &gen); err != nil {
		t.Fatal(err)
	}
	type getBlock struct {
		Blob        string `json:"blob"`
		BlockHeader struct {
			Hash                 string `json:"hash"`
			Difficulty           uint64 `json:"difficulty"`
			CumulativeDifficulty uint64 `json:"cumulative_difficulty"`
			Reward               uint64 `json:"reward"`
			BlockWeight          uint64 `json:"block_weight"`
			LongTermWeight       uint64 `json:"long_term_weight"`
		} `json:"block_header"`
	}
	var blocks []*cryptonote.Block
	var answers []getBlock
	for h := uint64(1); h <= gen.Height; h++ {
		var r getBlock
		if err := m.Call("getblock", map[string]any{"height": h}, &r); err != nil {
			t.Fatal(err)
		}
		blob, err := hex.DecodeString(r.Blob)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := cryptonote.ParseBlock(blob)
		if err != nil {
			t.Fatal(err)
		}
		blocks, answers = append(blocks, blk), append(answers, r)
	}
	if len(blocks) < 20 {
		t.Fatalf("monerod mined only %d blocks", len(blocks))
	}

	hasher, err := randomx.New(randomx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer hasher.Close()
	c, _ := openChain(t, chain.Config{Network: params.Regtest, FixedDifficulty: difficulty, PoW: hasher})
	last := len(blocks) - 1
	for i, blk := range blocks[:last] {
		meta, err := c.AddBlock(blk, blk.Serialize(), nil, nil)
		if err != nil {
			t.Fatalf("block %d mined by monerod refused: %v", i+1, err)
		}
		want := answers[i].BlockHeader
		if meta.Hash.String() != want.Hash || meta.Difficulty.Lo != want.Difficulty ||
			meta.CumulativeDifficulty.Lo != want.CumulativeDifficulty || meta.Reward != want.Reward ||
			meta.Weight != want.BlockWeight || meta.LongTermWeight != want.LongTermWeight {
			t.Fatalf("block %d: stored %+v, monerod %+v", i+1, meta, want)
		}
	}

	// Find a nonce under which the last block fails difficulty 20 (about 19
	// in 20 do); monerod must refuse the same blob.
	orig := blocks[last]
	for k := uint32(1); ; k++ {
		if k > 64 {
			t.Fatal("no failing nonce found in 64 tries")
		}
		bad, _ := cryptonote.ParseBlock(orig.Serialize())
		bad.Nonce = orig.Nonce + k
		// About one nonce in 20 meets difficulty 20 as well: such a block
		// is valid, and adding it would move the chain on. Skip it.
		height := uint64(last + 1)
		pow, err := consensus.BlockPoWHash(hasher, height, bad.MajorVersion, c.HashAt(consensus.SeedHeight(height)), bad.HashingBlob())
		if err != nil {
			t.Fatal(err)
		}
		if consensus.CheckPoWHash(pow, u128.U128{Lo: difficulty}) {
			continue
		}
		_, err = c.AddBlock(bad, bad.Serialize(), nil, nil)
		if err == nil {
			t.Fatalf("nonce +%d accepted, but no block at this height was expected to be added", k)
		}
		var pe *consensus.PoWError
		if !errors.As(err, &pe) {
			continue // cannot happen for a nonce change; keep looking
		}
		if err := m.Call("submitblock", []string{hex.EncodeToString(bad.Serialize())}, nil); err == nil {
			t.Fatalf("monerod accepted the block gonero refused (%v)", pe)
		}
		t.Logf("nonce +%d: gonero and monerod both refuse: %v", k, pe)
		break
	}
	if _, err := c.AddBlock(orig, orig.Serialize(), nil, nil); err != nil {
		t.Fatalf("the genuine last block: %v", err)
	}
	if c.Height() != uint64(len(blocks))+1 {
		t.Fatalf("height %d", c.Height())
	}
}
