package rpc

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
)

// TestCalcPowCryptoNightMatchesMonerod asks gonero and monerod for
// calc_pow of pre-RandomX blocks: the hashing blobs of the real mainnet
// blocks in testdata/mainnet at their own version and height, each
// also at two other CryptoNight majors (1, 6, 7, 8, 9, 10, 11 in turn) and
// other heights (CryptoNight-R's program depends on the height; 202612 is
// monerod's fixed hash), and random blobs. The answers must be byte-identical.
//
// Both start from the same empty regtest chain: a CryptoNight calc_pow uses
// neither the chain nor a seed. monerod-0.18.0's CryptoNight-R JIT aborts on
// this machine (docs/mainnet.md §1.7), so its interpreter is forced. monerod exits
// on a version-7 blob shorter than 43 bytes; no such request is sent.
func TestCalcPowCryptoNightMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	t.Setenv("MONERO_USE_CNV4_JIT", "0")
	m := lab.StartMonerodDirect(t)
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1})
	monerodURL := fmt.Sprintf("http://127.0.0.1:%d", m.RPCPort)

	files, err := filepath.Glob(testutil.Path(t, "testdata", "mainnet", "block", "*.bin"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no mainnet blocks: %v", err)
	}
	type blockCase struct {
		blob   []byte
		major  uint8
		height uint64
	}
	var blocks []blockCase
	genesis, _ := cryptonote.ParseBlock(params.Mainnet.GenesisBlock())
	blocks = append(blocks, blockCase{genesis.HashingBlob(), 1, 0})
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := cryptonote.ParseBlock(raw)
		if err != nil {
			t.Fatal(err)
		}
		gen, ok := blk.MinerTx.Inputs[0].(cryptonote.TxInGen)
		if !ok || blk.MajorVersion >= 12 {
			continue // RandomX blocks are another test's
		}
		blocks = append(blocks, blockCase{blk.HashingBlob(), blk.MajorVersion, gen.Height})
	}
	if len(blocks) < 5 {
		t.Fatalf("only %d pre-RandomX blocks", len(blocks))
	}

	calls := 0
	ask := func(major uint8, height uint64, blob []byte) {
		t.Helper()
		body := jsonRPC("calc_pow", fmt.Sprintf(`{"major_version":%d,"height":%d,"block_blob":%q}`, major, height, hex.EncodeToString(blob)))
		ts, theirs := httpPost(t, monerodURL, "/json_rpc", body)
		gs, ours := httpPost(t, node.url, "/json_rpc", body)
		if gs != ts || !bytes.Equal(ours, theirs) {
			t.Errorf("calc_pow major %d height %d blob %x:\n gonero: %d %s\nmonerod: %d %s", major, height, blob, gs, ours, ts, theirs)
		}
		if !bytes.Contains(theirs, []byte(`"result": "`)) {
			t.Errorf("monerod answered no hash: %s", theirs)
		}
		calls++
	}
	rng := rand.New(rand.NewPCG(16, 1))
	// The package runs under the race detector, where a hash costs about a
	// second: each block gets two other majors, in turn, rather than all
	// seven (the hash package's own oracle test covers the variants at
	// length).
	majors := []uint8{1, 6, 7, 8, 9, 10, 11}
	for i, b := range blocks {
		ask(b.major, b.height, b.blob)
		ask(majors[(2*i)%len(majors)], b.height+1, b.blob)
		ask(majors[(2*i+1)%len(majors)], rng.Uint64N(10_000_000), b.blob)
		ask(11, 202612, b.blob)
	}
	for i := range 6 {
		blob := make([]byte, 43+rng.IntN(100))
		for j := range blob {
			blob[j] = byte(rng.Uint32())
		}
		ask(uint8(6+i), rng.Uint64N(3_000_000), blob)
	}
	t.Logf("%d calc_pow answers identical", calls)
}
