package rpc

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/txpool"
)

// gatedChain verifies through the chain, each transaction after it told
// the test it entered verification and the test released it.
type gatedChain struct {
	*chain.Chain
	entered chan cryptonote.Hash
	release chan struct{}
}

func (g *gatedChain) CheckPoolTx(tx *cryptonote.Transaction, id cryptonote.Hash, blob []byte, keptByBlock bool, inPool func(cryptonote.Key) bool) (uint64, uint64, error) {
	g.entered <- id
	<-g.release
	return g.Chain.CheckPoolTx(tx, id, blob, keptByBlock, inPool)
}

// TestVerificationDoesNotBlockGetInfo: while a transaction sent to
// /sendrawtransaction is inside verification, get_info (both listeners),
// get_transaction_pool_stats and /get_transaction_pool_hashes answer. With
// the pool's lock held during verification they waited for it: here, for
// ever.
func TestVerificationDoesNotBlockGetInfo(t *testing.T) {
	g := &gatedChain{entered: make(chan cryptonote.Hash, 1), release: make(chan struct{})}
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1, pool: true,
		poolVerifier: func(c *chain.Chain) txpool.Verifier { g.Chain = c; return g }})
	// A version-1 transaction spending a key image of an output the chain
	// does not have: parsed, then refused by the chain's rules.
	tx := &cryptonote.Transaction{Version: 1, Extra: []byte{1, 1},
		Inputs:     []cryptonote.TxIn{cryptonote.TxInToKey{Amount: 1, KeyOffsets: []uint64{1}, KeyImage: cryptonote.Key{7}}},
		Signatures: [][]cryptonote.Signature{{{}}},
		Outputs:    []cryptonote.TxOut{{Amount: 1, Target: cryptonote.TxOutToKey{Key: cryptonote.Key{9}}}}}
	body := `{"tx_as_hex":"` + hex.EncodeToString(tx.Serialize()) + `","do_sanity_checks":false}`
	sent := make(chan []byte, 1)
	go func() {
		_, b := post(t, node.url, "/sendrawtransaction", []byte(body))
		sent <- b
	}()
	if id := <-g.entered; id != tx.ID() {
		t.Fatalf("verifying %s, want %s", id, tx.ID())
	}
	for _, url := range []string{node.url, node.rurl} {
		if code, b := post(t, url, "/json_rpc", []byte(`{"jsonrpc":"2.0","id":"0","method":"get_info"}`)); code != 200 || !strings.Contains(string(b), `"tx_pool_size": 0`) {
			t.Errorf("get_info during verification: %d %s", code, b)
		}
	}
	if code, b := post(t, node.url, "/get_transaction_pool_stats", []byte(`{}`)); code != 200 || !strings.Contains(string(b), `"txs_total": 0`) {
		t.Errorf("get_transaction_pool_stats during verification: %d %s", code, b)
	}
	if code, b := post(t, node.url, "/get_transaction_pool_hashes", []byte(`{}`)); code != 200 || !strings.Contains(string(b), `"status": "OK"`) {
		t.Errorf("/get_transaction_pool_hashes during verification: %d %s", code, b)
	}
	close(g.release)
	if b := <-sent; !strings.Contains(string(b), `"status": "Failed"`) {
		t.Fatalf("sendrawtransaction: %s, want a refusal", b)
	}
}
