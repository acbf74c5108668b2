package cryptonote

import (
	"errors"
	"os"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

// TestInputArrangementsAsMonerod: the arrangements of inputs monerod
// 0.18.5.3 refuses to parse (docs/chain-format.md §3.1), as observed by
// sending each blob to its /sendrawtransaction ("Failed to parse
// transaction from blob"), fail to decode here too, alone, as a block's
// miner transaction and in a pruned blob; those it parses decode.
func TestInputArrangementsAsMonerod(t *testing.T) {
	b, err := os.ReadFile(testutil.Path(t, "testdata", "mainnet", "tx", "2180a87f724702d37af087e22476297e818a73579ef7b7da947da963245202a3.bin"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := ParseTransaction(b)
	if err != nil {
		t.Fatal(err)
	}
	key := base.Inputs[0].(TxInToKey)
	gen := TxInGen{Height: 1}
	// with builds the version-1 transaction with the given inputs (a ring
	// signature per key input's member, none for the others).
	with := func(version uint64, ins ...TxIn) *Transaction {
		tx := *base
		tx.Version, tx.Inputs, tx.Signatures = version, ins, make([][]Signature, len(ins))
		if version == 2 {
			tx.Signatures, tx.Rct = nil, &RctSig{Type: RctTypeNull}
		}
		for i, in := range ins {
			if k, ok := in.(TxInToKey); ok && version == 1 {
				tx.Signatures[i] = make([]Signature, len(k.KeyOffsets))
			}
		}
		return &tx
	}
	cases := []struct {
		name string
		tx   *Transaction
		ok   bool
	}{
		{"key inputs", with(1, key, key), true},
		{"no inputs", with(1), true},
		{"a lone gen (miner transaction)", with(1, gen), true},
		{"a lone gen, version 2", with(2, gen), true},
		{"gen before key inputs", with(1, gen, key, key), false},
		{"gen after key inputs", with(1, key, key, gen), false},
		{"two gens", with(1, gen, gen), false},
		{"two gens, version 2", with(2, gen, gen), false},
		{"a lone script input", with(1, TxInToScript{}), false},
		{"a lone scripthash input", with(1, TxInToScriptHash{}), false},
		{"key and script inputs", with(1, key, TxInToScript{}), false},
	}
	for _, c := range cases {
		blob := c.tx.Serialize()
		_, err := ParseTransaction(blob)
		if c.ok != (err == nil) || (!c.ok && !errors.Is(err, ErrInputType)) {
			t.Errorf("%s: %v", c.name, err)
		}
		_, err = ParsePrunedTransaction(blob[:prunedLen(c.tx)])
		if c.ok != (err == nil) || (!c.ok && !errors.Is(err, ErrInputType)) {
			t.Errorf("%s, pruned: %v", c.name, err)
		}
		blk := Block{BlockHeader: BlockHeader{MajorVersion: 1}, MinerTx: *c.tx}
		if _, err := ParseBlock(blk.Serialize()); c.ok != (err == nil) || (!c.ok && !errors.Is(err, ErrInputType)) {
			t.Errorf("%s, as a block's miner transaction: %v", c.name, err)
		}
	}
}

// prunedLen is how many bytes of tx's blob its pruned blob keeps: the
// prefix (version 1) or the prefix and the RingCT base (version 2).
func prunedLen(tx *Transaction) int {
	_, parts := tx.appendParts(nil)
	if tx.Version == 2 {
		return parts.baseEnd
	}
	return parts.prefixEnd
}

// inputsParseInMonerod is docs/chain-format.md §3.1's rule, written apart
// from the decoder for the fuzz targets: a lone txin_gen, or only
// txin_to_key inputs.
func inputsParseInMonerod(tx *Transaction) bool {
	if len(tx.Inputs) == 1 {
		if _, ok := tx.Inputs[0].(TxInGen); ok {
			return true
		}
	}
	for _, in := range tx.Inputs {
		if _, ok := in.(TxInToKey); !ok {
			return false
		}
	}
	return true
}
