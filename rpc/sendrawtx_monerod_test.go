package rpc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
)

// A wallet's real transaction, and copies of it that each break one rule,
// are sent to gonero's and monerod's /sendrawtransaction on the same fresh
// chain: every answer (status, every verification flag, reason,
// not_relayed) is the same. The valid transaction goes last but one, so
// that the invalid copies meet empty pools; after it, a copy spending the
// same key images meets the pool's double-spend rule on both.
func TestSendRawTransactionMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1, exportFile: fresh.RawFile, pool: true})
	m := lab.StartMonerod(t, fresh.NodeDir)

	// A transfer made by alice's wallet and not sent anywhere.
	w := lab.OpenWallet(t, fresh, "alice", m.RPCPort)
	var made struct {
		TxBlob string `json:"tx_blob"`
	}
	// A large amount, so that the transaction has several inputs.
	if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 60_000_000_000_000, "address": monerodlab.AliceAddress}},
		"account_index": 0, "priority": 0, "do_not_relay": true, "get_tx_hex": true}, &made); err != nil {
		t.Fatal(err)
	}
	valid, err := hex.DecodeString(made.TxBlob)
	if err != nil {
		t.Fatal(err)
	}
	base, err := cryptonote.ParseTransaction(valid)
	if err != nil {
		t.Fatal(err)
	}
	if len(base.Inputs) < 2 || base.Rct == nil || base.Rct.Type != cryptonote.RctTypeBulletproofPlus {
		t.Fatalf("the wallet's transaction has %d inputs, RingCT %v; the cases need two or more, type 6", len(base.Inputs), base.Rct)
	}
	// A transaction already on the chain.
	var chainTx []byte
	if err := node.chain.Store().View(func(r *chaindb.Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		for h := height - 1; h > 0; h-- {
			ids, err := r.TxHashes(h)
			if err != nil {
				return err
			}
			if len(ids) > 0 {
				chainTx, err = r.TxBlob(ids[0])
				return err
			}
		}
		return fmt.Errorf("no transaction on the fresh chain")
	}); err != nil {
		t.Fatal(err)
	}

	edit := func(from []byte, f func(tx *cryptonote.Transaction)) string {
		tx, err := cryptonote.ParseTransaction(from)
		if err != nil {
			t.Fatal(err)
		}
		f(tx)
		return hex.EncodeToString(tx.Serialize())
	}
	mutate := func(f func(tx *cryptonote.Transaction)) string { return edit(valid, f) }
	setInput := func(tx *cryptonote.Transaction, i int, f func(in *cryptonote.TxInToKey)) {
		in := tx.Inputs[i].(cryptonote.TxInToKey)
		in.KeyOffsets = slices.Clone(in.KeyOffsets)
		f(&in)
		tx.Inputs[i] = in
	}
	torsion, _ := hex.DecodeString("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
	// asV1 is the wallet's transaction as version 1: no RingCT data, a
	// (zero) ring signature per ring member, and input and output amounts
	// set by amounts (nil: left at 0).
	asV1 := func(amounts func(tx *cryptonote.Transaction)) string {
		return mutate(func(tx *cryptonote.Transaction) {
			tx.Version, tx.Rct = 1, nil
			tx.Signatures = make([][]cryptonote.Signature, len(tx.Inputs))
			for i, in := range tx.Inputs {
				tx.Signatures[i] = make([]cryptonote.Signature, len(in.(cryptonote.TxInToKey).KeyOffsets))
			}
			if amounts != nil {
				amounts(tx)
			}
		})
	}
	v1Amounts := func(in, out uint64) func(tx *cryptonote.Transaction) {
		return func(tx *cryptonote.Transaction) {
			for i := range tx.Inputs {
				setInput(tx, i, func(k *cryptonote.TxInToKey) { k.Amount = in })
			}
			for i := range tx.Outputs {
				tx.Outputs[i].Amount = out
			}
		}
	}
	mainnetV1, err := os.ReadFile(testutil.Path(t, "testdata", "mainnet", "tx", "2180a87f724702d37af087e22476297e818a73579ef7b7da947da963245202a3.bin"))
	if err != nil {
		t.Fatal(err)
	}

	withGen := asV1(func(tx *cryptonote.Transaction) {
		tx.Inputs[0], tx.Signatures[0] = cryptonote.TxInGen{Height: 1}, nil
	})

	cases := []struct {
		name string
		hex  string
		opts string // extra request members
	}{
		{"not hex", "zz", ""},
		{"truncated blob", made.TxBlob[:len(made.TxBlob)/2], ""},
		{"CLSAG scalar changed", mutate(func(tx *cryptonote.Transaction) { tx.Rct.Prunable.CLSAGs[0].S[3][0] ^= 1 }), ""},
		{"CLSAG c1 changed", mutate(func(tx *cryptonote.Transaction) { tx.Rct.Prunable.CLSAGs[1].C1[5] ^= 1 }), ""},
		{"BP+ proof changed", mutate(func(tx *cryptonote.Transaction) { tx.Rct.Prunable.BulletproofsPlus[0].R1[0] ^= 1 }), ""},
		{"fee changed (balance)", mutate(func(tx *cryptonote.Transaction) { tx.Rct.TxnFee++ }), ""},
		{"pseudo-out changed (balance)", mutate(func(tx *cryptonote.Transaction) {
			tx.Rct.Prunable.PseudoOuts[0] = tx.Rct.Prunable.PseudoOuts[1]
		}), ""},
		{"extra changed (signed message)", mutate(func(tx *cryptonote.Transaction) { tx.Extra = append(tx.Extra, 0) }), ""},
		{"unlock time set", mutate(func(tx *cryptonote.Transaction) { tx.UnlockTime = 5 }), ""},
		{"inputs out of order", mutate(func(tx *cryptonote.Transaction) {
			tx.Inputs[0], tx.Inputs[1] = tx.Inputs[1], tx.Inputs[0]
		}), ""},
		{"key image twice", mutate(func(tx *cryptonote.Transaction) {
			ki := tx.Inputs[0].(cryptonote.TxInToKey).KeyImage
			setInput(tx, 1, func(in *cryptonote.TxInToKey) { in.KeyImage = ki })
		}), ""},
		{"key image with a torsion component", mutate(func(tx *cryptonote.Transaction) {
			setInput(tx, 0, func(in *cryptonote.TxInToKey) {
				p, _ := crypto.DecodePoint(in.KeyImage[:])
				q, _ := crypto.DecodePoint(torsion)
				in.KeyImage = cryptonote.Key(new(edwards25519.Point).Add(p, q).Bytes())
			})
		}), ""},
		{"ring member that does not exist", mutate(func(tx *cryptonote.Transaction) {
			setInput(tx, 0, func(in *cryptonote.TxInToKey) { in.KeyOffsets[len(in.KeyOffsets)-1] += 1_000_000 })
		}), ""},
		{"duplicate ring member", mutate(func(tx *cryptonote.Transaction) {
			setInput(tx, 0, func(in *cryptonote.TxInToKey) { in.KeyOffsets[5] = 0 })
		}), ""},
		{"ring size 15", mutate(func(tx *cryptonote.Transaction) {
			for i := range tx.Inputs {
				setInput(tx, i, func(in *cryptonote.TxInToKey) { in.KeyOffsets = in.KeyOffsets[:15] })
				tx.Rct.Prunable.CLSAGs[i].S = tx.Rct.Prunable.CLSAGs[i].S[:15]
			}
		}), ""},
		{"output key not a point", mutate(func(tx *cryptonote.Transaction) {
			tx.Outputs[0].Target = cryptonote.TxOutToTaggedKey{Key: cryptonote.Key{2}, ViewTag: 1}
		}), ""},
		{"output without a view tag", mutate(func(tx *cryptonote.Transaction) {
			tx.Outputs[0].Target = cryptonote.TxOutToKey{Key: tx.Outputs[0].Target.(cryptonote.TxOutToTaggedKey).Key}
		}), ""},
		{"one output", mutate(func(tx *cryptonote.Transaction) {
			tx.Outputs, tx.Rct.OutPk, tx.Rct.EcdhInfo = tx.Outputs[:1], tx.Rct.OutPk[:1], tx.Rct.EcdhInfo[:1]
		}), ""},
		{"key images spent on the chain", edit(chainTx, func(tx *cryptonote.Transaction) { tx.Extra = append(tx.Extra, 0) }), ""},
		{"already on the chain", hex.EncodeToString(chainTx), ""},
		// monerod 0.18.5.2 on checks the pool's rules (fee first) before
		// ver_non_input_consensus (PR #11304): a v1 transaction without a
		// fee is fee_too_low whatever else is wrong with it, and so is any
		// transaction without a fee.
		{"version 1, amounts 0 (no fee)", asV1(nil), ""},
		{"version 1, outputs equal to inputs", asV1(v1Amounts(1_000_000_000_000*uint64(len(base.Outputs)), 1_000_000_000_000*uint64(len(base.Inputs)))), ""},
		{"version 1, outputs over inputs", asV1(v1Amounts(100, 1_000_000_000_000)), ""},
		{"version 1 with a fee, ring members that do not exist", asV1(v1Amounts(2_000_000_000_000, 1_000_000_000_000)), ""},
		{"mainnet version 1 (outputs without view tags)", hex.EncodeToString(mainnetV1), ""},
		// monerod 0.18.5.3 does not parse a txin_gen beside other inputs
		// (docs/chain-format.md §3.1): the sanity check fails on it, and
		// without the sanity check handle_incoming_tx refuses it unparsed.
		{"version 1 with a coinbase input beside its key inputs", withGen, ""},
		{"the same, without sanity checks", withGen, `,"do_sanity_checks":false`},
		{"fee 0 and an output key not a point", mutate(func(tx *cryptonote.Transaction) {
			tx.Rct.TxnFee = 0
			tx.Outputs[0].Target = cryptonote.TxOutToTaggedKey{Key: cryptonote.Key{2}, ViewTag: 1}
		}), ""},
		{"fee 0 and a key image twice", mutate(func(tx *cryptonote.Transaction) {
			tx.Rct.TxnFee = 0
			ki := tx.Inputs[0].(cryptonote.TxInToKey).KeyImage
			setInput(tx, 1, func(in *cryptonote.TxInToKey) { in.KeyImage = ki })
		}), ""},
		{"valid, without sanity checks", made.TxBlob, `,"do_sanity_checks":false`},
		{"valid again (already in the pool)", made.TxBlob, ""},
		{"same key images as a pool transaction", mutate(func(tx *cryptonote.Transaction) { tx.Extra = append(tx.Extra, 0) }), ""},
	}
	var table strings.Builder
	for _, c := range cases {
		body := []byte(fmt.Sprintf(`{"tx_as_hex":%q,"do_not_relay":true%s}`, c.hex, c.opts))
		theirs, err := m.Post("/sendrawtransaction", body)
		if err != nil {
			t.Fatalf("%s: monerod: %v", c.name, err)
		}
		_, ours := post(t, node.url, "/sendrawtransaction", body)
		g, w := canonical(t, ours, "top_hash", "credits"), canonical(t, theirs, "top_hash", "credits")
		if g != w {
			t.Errorf("%s:\n gonero: %s\nmonerod: %s", c.name, g, w)
		}
		var ans map[string]any
		_ = json.Unmarshal(theirs, &ans)
		var flags []string
		for k, v := range ans {
			if b, ok := v.(bool); ok && b {
				flags = append(flags, k)
			}
		}
		slices.Sort(flags)
		fmt.Fprintf(&table, "%-40s %-7v %s\n", c.name, ans["status"], strings.Join(flags, ","))
	}
	t.Logf("case / monerod's status and flags (gonero's equal):\n%s", table.String())
	if n := node.pool.Len(); n != 1 {
		t.Fatalf("gonero's pool holds %d transactions, want the valid one", n)
	}

	// Both pools list it alike, in every form.
	for _, path := range []string{"/get_transaction_pool_hashes", "/get_transaction_pool_hashes.bin"} {
		theirs, err := m.Post(path, []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		_, ours := post(t, node.url, path, []byte(`{}`))
		if g, w := canonical(t, ours, "top_hash", "credits"), canonical(t, theirs, "top_hash", "credits"); g != w {
			t.Errorf("%s:\n gonero: %q\nmonerod: %q", path, g, w)
		}
	}
	var infoTheirs struct {
		TxPoolSize uint64 `json:"tx_pool_size"`
	}
	if err := m.Call("get_info", nil, &infoTheirs); err != nil {
		t.Fatal(err)
	}
	var infoOurs struct {
		TxPoolSize uint64 `json:"tx_pool_size"`
	}
	node.call(t, "get_info", `{}`, &infoOurs)
	if infoOurs.TxPoolSize != 1 || infoTheirs.TxPoolSize != 1 {
		t.Errorf("tx_pool_size: gonero %d, monerod %d, want 1", infoOurs.TxPoolSize, infoTheirs.TxPoolSize)
	}

	// gonero's miner takes the pool transaction: the block lists it and the
	// miner transaction claims the base reward plus its fee. monerod (which
	// has the transaction in its pool too) accepts the block, its pool
	// empties like gonero's, and both chains answer alike.
	before := node.chain.NextBlockFacts()
	g := generate(t, node, 1, monerodlab.AliceAddress)
	top := node.chain.Top()
	if top.NumTxes != 1 {
		t.Fatalf("gonero mined a block with %d transactions, want the pool's one", top.NumTxes)
	}
	var hashes []cryptonote.Hash
	if err := node.chain.Store().View(func(r *chaindb.Reader) error {
		var err error
		hashes, err = r.TxHashes(top.Height)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if hashes[0] != base.ID() {
		t.Fatalf("the mined block lists %s, want %s", hashes[0], base.ID())
	}
	if want := consensus.BaseReward(before.Top.GeneratedCoins, top.MajorVersion) + base.Rct.TxnFee; top.Reward != want {
		t.Fatalf("miner reward %d, want base reward plus fee %d", top.Reward, want)
	}
	if n := node.pool.Len(); n != 0 {
		t.Fatalf("gonero's pool holds %d transactions after mining", n)
	}
	submitAll(t, node, m)
	var pool struct {
		TxHashes []string `json:"tx_hashes"`
	}
	body, err := m.Post("/get_transaction_pool_hashes", []byte(`{}`))
	if err != nil || json.Unmarshal(body, &pool) != nil || len(pool.TxHashes) != 0 {
		t.Fatalf("monerod's pool after gonero's block %s: %s %v", g.Blocks[0], body, err)
	}
	compareChains(t, node, m)
}
