package rpc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/txpool"
)

// The pool-only rules of monerod 0.18.3.4 on (tx_memory_pool::add_tx): a tx
// extra over MAX_TX_EXTRA_SIZE (1060 bytes) and a non-zero unlock time are
// refused, after the fee and before the pool's key images and the
// signatures. Transactions breaking them, alone and together with other
// rules, go to monerod's /sendrawtransaction and to gonero's pool on the
// same chain: the verdict (status and every flag) is the same.
func TestPoolOnlyRulesMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	node := startNodeWith(t, nodeOptions{net: params.Regtest, fixedDifficulty: 1, exportFile: fresh.RawFile, pool: true})
	m := lab.StartMonerod(t, fresh.NodeDir)
	// Debian 12's wallet: the reference wallet refuses to make a transaction
	// with an unlock time.
	w := lab.OpenOldWallet(t, fresh, "alice", m.RPCPort)
	var height struct {
		Height uint64 `json:"height"`
	}
	if err := m.Call("get_block_count", nil, &height); err != nil {
		t.Fatal(err)
	}
	transfer := func(amount uint64, priority int, unlock uint64) []byte {
		t.Helper()
		var made struct {
			TxBlob string `json:"tx_blob"`
		}
		if err := w.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": amount, "address": monerodlab.AliceSubaddress}},
			"account_index": 0, "priority": priority, "unlock_time": unlock, "do_not_relay": true, "get_tx_hex": true}, &made); err != nil {
			t.Fatal(err)
		}
		blob, err := hex.DecodeString(made.TxBlob)
		if err != nil {
			t.Fatal(err)
		}
		return blob
	}
	// A transaction paying the highest fee (room for a much larger extra)
	// with several inputs, one paying the lowest, and one locked until 100
	// blocks from now, all signed by the wallet.
	rich, poor, locked := transfer(60_000_000_000_000, 4, 0), transfer(1_000_000_000_000, 1, 0), transfer(1_000_000_000_000, 1, height.Height+100)
	if tx, err := cryptonote.ParseTransaction(rich); err != nil || len(tx.Inputs) < 2 || tx.Rct == nil || len(tx.Rct.Prunable.PseudoOuts) < 2 {
		t.Fatalf("the wallet's transaction (%v) needs two inputs or more", err)
	}
	edit := func(from []byte, f func(tx *cryptonote.Transaction)) []byte {
		tx, err := cryptonote.ParseTransaction(from)
		if err != nil {
			t.Fatal(err)
		}
		f(tx)
		return tx.Serialize()
	}
	// extraOf pads the extra to n bytes with zeros (padding tags; the
	// signature no longer matches: only rules before it can be met).
	extraOf := func(n int) func(tx *cryptonote.Transaction) {
		return func(tx *cryptonote.Transaction) {
			pad := n - len(tx.Extra)
			if pad < 2 {
				t.Fatalf("extra already %d bytes", len(tx.Extra))
			}
			tx.Extra = append(tx.Extra, make([]byte, pad)...)
		}
	}
	unlockAt := func(u uint64) func(tx *cryptonote.Transaction) {
		return func(tx *cryptonote.Transaction) { tx.UnlockTime = u }
	}
	both := func(fs ...func(tx *cryptonote.Transaction)) func(tx *cryptonote.Transaction) {
		return func(tx *cryptonote.Transaction) {
			for _, f := range fs {
				f(tx)
			}
		}
	}

	setInput := func(i int, f func(in *cryptonote.TxInToKey)) func(tx *cryptonote.Transaction) {
		return func(tx *cryptonote.Transaction) {
			in := tx.Inputs[i].(cryptonote.TxInToKey)
			in.KeyOffsets = slices.Clone(in.KeyOffsets)
			f(&in)
			tx.Inputs[i] = in
		}
	}
	bpChanged := func(tx *cryptonote.Transaction) { tx.Rct.Prunable.BulletproofsPlus[0].R1[0] ^= 1 }
	cases := []struct {
		name string
		blob []byte
		want string // the flag monerod must report (guards the cases themselves)
	}{
		{"unlock time, signed by the wallet", locked, "nonzero_unlock_time"},
		{"extra of 1061 bytes", edit(rich, extraOf(consensus.MaxTxExtraSize+1)), "tx_extra_too_big"},
		{"extra of 1060 bytes (then the signature)", edit(rich, extraOf(consensus.MaxTxExtraSize)), "invalid_input"},
		{"extra too big and unlock time", edit(rich, both(extraOf(4000), unlockAt(7))), "tx_extra_too_big"},
		{"extra too big, fee too low for its weight", edit(poor, extraOf(8000)), "fee_too_low"},
		{"unlock time and a bad signature", edit(rich, unlockAt(1)), "nonzero_unlock_time"},
		// The rules before them, with the flags 0.18.4 gave them
		// (ver_non_input_consensus; 0.18.0 set none for most).
		{"key image twice", edit(rich, func(tx *cryptonote.Transaction) {
			ki := tx.Inputs[0].(cryptonote.TxInToKey).KeyImage
			setInput(1, func(in *cryptonote.TxInToKey) { in.KeyImage = ki })(tx)
		}), "invalid_input"},
		{"identity key image", edit(rich, setInput(0, func(in *cryptonote.TxInToKey) { in.KeyImage = cryptonote.Key{1} })), "invalid_input"},
		{"duplicate ring member", edit(rich, setInput(0, func(in *cryptonote.TxInToKey) { in.KeyOffsets[5] = 0 })), "invalid_input"},
		{"output key not a point", edit(rich, func(tx *cryptonote.Transaction) {
			tx.Outputs[0].Target = cryptonote.TxOutToTaggedKey{Key: cryptonote.Key{2}, ViewTag: 1}
		}), "invalid_output"},
		{"output without a view tag", edit(rich, func(tx *cryptonote.Transaction) {
			tx.Outputs[0].Target = cryptonote.TxOutToKey{Key: tx.Outputs[0].Target.(cryptonote.TxOutToTaggedKey).Key}
		}), "invalid_output"},
		{"BP+ proof changed", edit(rich, bpChanged), "invalid_input"},
		{"pseudo-out changed (balance)", edit(rich, func(tx *cryptonote.Transaction) {
			tx.Rct.Prunable.PseudoOuts[0] = tx.Rct.Prunable.PseudoOuts[1]
		}), "invalid_input"},
		// The RingCT semantics (range proofs, balance) come after the pool's
		// rules in 0.18.5.3 (as monerod answers; its source reads otherwise).
		{"BP+ proof changed and unlock time", edit(rich, both(unlockAt(3), bpChanged)), "nonzero_unlock_time"},
		{"BP+ proof changed and extra too big", edit(rich, both(extraOf(2000), bpChanged)), "tx_extra_too_big"},
		{"pseudo-out changed and unlock time", edit(rich, both(unlockAt(3), func(tx *cryptonote.Transaction) {
			tx.Rct.Prunable.PseudoOuts[0] = tx.Rct.Prunable.PseudoOuts[1]
		})), "nonzero_unlock_time"},
		{"valid", rich, ""},
		{"unlock time, key images in the pool", edit(rich, unlockAt(1)), "nonzero_unlock_time"},
		{"extra too big, key images in the pool", edit(rich, extraOf(2000)), "tx_extra_too_big"},
		{"BP+ proof changed, key images in the pool", edit(rich, bpChanged), "double_spend"},
		{"key images in the pool", edit(rich, func(tx *cryptonote.Transaction) { tx.Extra = append(tx.Extra, 0) }), "double_spend"},
	}
	var table strings.Builder
	for _, c := range cases {
		body := []byte(fmt.Sprintf(`{"tx_as_hex":%q,"do_not_relay":true,"do_sanity_checks":false}`, hex.EncodeToString(c.blob)))
		raw, err := m.Post("/sendrawtransaction", body)
		if err != nil {
			t.Fatalf("%s: monerod: %v", c.name, err)
		}
		var ans map[string]any
		if err := json.Unmarshal(raw, &ans); err != nil {
			t.Fatalf("%s: monerod: %v", c.name, err)
		}
		var theirs []string
		for _, name := range consensus.AllTxFlags.Fields() {
			if b, _ := ans[name].(bool); b {
				theirs = append(theirs, name)
			}
		}
		theirStatus, _ := ans["status"].(string)

		ourStatus := "OK"
		var ours []string
		_, err = node.pool.Add(c.blob, txpool.AddOptions{Source: txpool.SourceRPC, DoNotRelay: true})
		if err != nil {
			ourStatus = "Failed"
			ours = consensus.FlagsOf(err).Fields()
		}
		if c.want != "" && !slices.Contains(theirs, c.want) || c.want == "" && theirStatus != "OK" {
			t.Errorf("%s: monerod answered %s %v, the case expects %q", c.name, theirStatus, theirs, c.want)
		}
		if ourStatus != theirStatus || !slices.Equal(ours, theirs) {
			t.Errorf("%s:\n gonero: %s %v (%v)\nmonerod: %s %v", c.name, ourStatus, ours, err, theirStatus, theirs)
		}
		fmt.Fprintf(&table, "%-45s %-7s %s\n", c.name, theirStatus, strings.Join(theirs, ","))
	}
	t.Logf("case / monerod's status and flags:\n%s", table.String())
}

// The default P2P rate limits (P2P_DEFAULT_LIMIT_RATE_UP/DOWN, raised 4x in
// monerod 0.18.4.0, commit 66c2fe12c) are what /get_limit answers at start
// and after /set_limit resets them with -1, on gonero as on monerod.
func TestDefaultRateLimitsMatchMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	node := startNode(t, "", nil)
	m := lab.StartMonerod(t, "")
	var ver struct {
		Version uint64 `json:"version"`
	}
	if err := m.Call("get_version", nil, &ver); err != nil {
		t.Fatal(err)
	}
	if ver.Version < 3<<16|14 { // RPC 3.14: monerod 0.18.4.0
		t.Skipf("monerod on the PATH speaks RPC %d.%d, older than 0.18.4's limits", ver.Version>>16, ver.Version&0xffff)
	}
	limits := func(who string, body []byte) (up, down float64) {
		t.Helper()
		var ans map[string]any
		if err := json.Unmarshal(body, &ans); err != nil {
			t.Fatalf("%s: %v: %s", who, err, body)
		}
		up, _ = ans["limit_up"].(float64)
		down, _ = ans["limit_down"].(float64)
		return up, down
	}
	for _, step := range []string{"", `{"limit_up":-1,"limit_down":-1}`} {
		if step != "" {
			if _, err := m.Post("/set_limit", []byte(step)); err != nil {
				t.Fatal(err)
			}
			post(t, node.url, "/set_limit", []byte(step))
		}
		theirs, err := m.Post("/get_limit", []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		_, ours := post(t, node.url, "/get_limit", []byte(`{}`))
		wu, wd := limits("monerod", theirs)
		gu, gd := limits("gonero", ours)
		if wu != 8192 || wd != 32768 {
			t.Errorf("after %q monerod's limits are up %v, down %v kB/s; this test expects 0.18.4's 8192 and 32768", step, wu, wd)
		}
		if gu != wu || gd != wd {
			t.Errorf("after %q: gonero up %v, down %v; monerod up %v, down %v", step, gu, gd, wu, wd)
		}
	}
}
