package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/portable"
)

// A wallet is only as good as its daemon: monero-wallet-rpc restored from
// seed through gonerod must see exactly what the same wallet sees through
// monerod, on the same chain, before and after a payment made through
// gonerod, mined by gonerod and synced by monerod.
//
// gonerod runs on the fresh chain with monerod as its P2P peer; alice and
// bob are each restored from their seeds twice, once on each daemon. The
// wallets' own views (height, balances per account and subaddress,
// incoming, outgoing, pool and failed transfers, outputs with key images
// and spent flags, proofs) are compared after every step.
func TestWalletOnGonerodMatchesMonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	began := time.Now()
	step := func(format string, args ...any) {
		t.Helper()
		t.Logf("%6.2fs  %s", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}

	bin := inProcess
	data := importChain(t, bin, fresh)
	g := startGonerod(t, bin, data)
	m := lab.StartMonerod(t, fresh.NodeDir, "--online", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(g.p2pPort))
	waitFor(t, 60*time.Second, "both nodes synchronized at the same top", func() bool {
		gi, mi := g.info(t), monerodInfo(t, m)
		return gi.Synchronized && mi.Synchronized && gi.Height == mi.Height && gi.TopHash == mi.TopHash
	})
	step("gonerod and monerod synchronized at height %d", g.info(t).Height)

	// The seeds of the chain's wallets; this wallet-rpc then serves as
	// alice's wallet through monerod.
	seeds := map[string]string{}
	aM := lab.StartWalletRPC(t, m.RPCPort)
	for _, name := range []string{"alice", "bob"} {
		w := lab.OpenWallet(t, fresh, name, m.RPCPort)
		var key struct {
			Key string `json:"key"`
		}
		if err := w.Call("query_key", map[string]any{"key_type": "mnemonic"}, &key); err != nil {
			t.Fatal(err)
		}
		seeds[name] = key.Key
		if err := w.Call("close_wallet", struct{}{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	restore := func(w *monerodlab.WalletRPC, name string) {
		t.Helper()
		if err := w.Call("restore_deterministic_wallet", map[string]any{"filename": name, "password": "", "seed": seeds[name],
			"restore_height": 0, "autosave_current": false}, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.Call("auto_refresh", map[string]any{"enable": false}, nil); err != nil {
			t.Fatal(err)
		}
		refreshWallet(t, w)
	}
	// bob's wallet on gonerod goes through a proxy that reads its
	// /getblocks.bin exchanges (poolWatch).
	watch := startPoolWatch(t, g.rpcPort)
	aG, bG, bM := lab.StartWalletRPC(t, g.rpcPort), lab.StartWalletRPC(t, watch.port), lab.StartWalletRPC(t, m.RPCPort)
	restore(aG, "alice")
	restore(aM, "alice")
	restore(bG, "bob")
	restore(bM, "bob")
	compareWallets(t, "alice restored from seed", aG, aM)
	compareWallets(t, "bob restored from seed", bG, bM)
	step("alice and bob restored from seed: the same wallets through gonerod and through monerod")

	var bobAddr, aliceAddr struct {
		Address string `json:"address"`
	}
	if err := bG.Call("get_address", map[string]any{"account_index": 0}, &bobAddr); err != nil {
		t.Fatal(err)
	}
	if err := aG.Call("get_address", map[string]any{"account_index": 0}, &aliceAddr); err != nil {
		t.Fatal(err)
	}

	// alice pays bob through gonerod.
	var paid struct {
		Hash string `json:"tx_hash"`
		Key  string `json:"tx_key"`
		Fee  uint64 `json:"fee"`
	}
	if err := aG.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 1_500_000_000_000, "address": bobAddr.Address}},
		"account_index": 0, "priority": 0, "get_tx_key": true}, &paid); err != nil {
		t.Fatal(err)
	}
	step("alice paid bob through gonerod: tx %s, fee %d", paid.Hash, paid.Fee)
	if !slices.Contains(poolHashes(t, g.post), paid.Hash) {
		t.Fatalf("the payment is not in gonerod's pool")
	}
	waitFor(t, 30*time.Second, "the payment in monerod's pool", func() bool { return slices.Contains(poolHashes(t, m.Post), paid.Hash) })
	for _, w := range []*monerodlab.WalletRPC{aG, aM, bG, bM} {
		refreshWallet(t, w)
	}
	// bob only observes, on both daemons; alice through gonerod made the
	// payment and knows more of it than alice through monerod can (its
	// destinations, its spent outputs before they are mined), so alice is
	// compared after a rescan below.
	compareWallets(t, "bob with the payment in the pool", bG, bM)
	var inPool struct {
		Transfer struct {
			Type   string `json:"type"`
			Amount uint64 `json:"amount"`
		} `json:"transfer"`
	}
	if err := bG.Call("get_transfer_by_txid", map[string]any{"txid": paid.Hash}, &inPool); err != nil || inPool.Transfer.Type != "pool" {
		t.Fatalf("bob through gonerod does not see the payment in the pool: %v %+v", err, inPool)
	}
	// The wallet (monerodlab.ReferenceVersion) asked for the pool with its
	// blocks (requested_info 1 or 2) and got it every time: wallet2 falls
	// back to the older pool queries (/get_transaction_pool_hashes.bin) at
	// a refresh only when an answer to such a request has no pool data.
	if asked, answered := watch.counts(); asked == 0 || answered != asked {
		t.Fatalf("bob's wallet asked gonerod %d times for pool data in /getblocks.bin, and got it %d times", asked, answered)
	}
	asked, _ := watch.counts()
	step("bob's wallet took the pool from /getblocks.bin's pool data (%d answers), no fallback", asked)

	// gonerod's miner mines it; monerod syncs the block and reports the
	// transaction in it.
	var gen struct {
		Blocks []string `json:"blocks"`
		Height uint64   `json:"height"`
	}
	before := g.info(t)
	if err := g.call("generateblocks", map[string]any{"amount_of_blocks": 1, "wallet_address": aliceAddr.Address}, &gen); err != nil {
		t.Fatal(err)
	}
	if blk := g.block(t, before.Height); !slices.Contains(blk.TxHashes, paid.Hash) {
		t.Fatalf("gonerod mined block %d without the payment: %v", before.Height, blk.TxHashes)
	}
	waitFor(t, 30*time.Second, "monerod at gonerod's new top", func() bool {
		mi := monerodInfo(t, m)
		return mi.Height == before.Height+1 && mi.TopHash == gen.Blocks[0]
	})
	body, err := m.Post("/gettransactions", []byte(`{"txs_hashes":["`+paid.Hash+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Txs []struct {
			BlockHeight uint64 `json:"block_height"`
			InPool      bool   `json:"in_pool"`
		} `json:"txs"`
	}
	if err := json.Unmarshal(body, &got); err != nil || len(got.Txs) != 1 || got.Txs[0].InPool || got.Txs[0].BlockHeight != before.Height {
		t.Fatalf("monerod's gettransactions for the payment: %s", body)
	}
	step("gonerod mined the payment in block %d; monerod synced it and reports it there", before.Height)
	for _, w := range []*monerodlab.WalletRPC{aG, aM, bG, bM} {
		refreshWallet(t, w)
	}
	var confirmed struct {
		Transfer struct {
			Type   string `json:"type"`
			Height uint64 `json:"height"`
		} `json:"transfer"`
	}
	if err := bG.Call("get_transfer_by_txid", map[string]any{"txid": paid.Hash}, &confirmed); err != nil ||
		confirmed.Transfer.Type != "in" || confirmed.Transfer.Height != before.Height {
		t.Fatalf("bob through gonerod: the payment is %+v (%v), want in at height %d", confirmed, err, before.Height)
	}
	if err := aG.Call("get_transfer_by_txid", map[string]any{"txid": paid.Hash}, &confirmed); err != nil ||
		confirmed.Transfer.Type != "out" || confirmed.Transfer.Height != before.Height {
		t.Fatalf("alice through gonerod: the payment is %+v (%v), want out at height %d", confirmed, err, before.Height)
	}
	compareWallets(t, "bob after the block", bG, bM)
	rescan(t, aG, aM)
	compareWallets(t, "alice after the block, rescanned", aG, aM)

	// Proofs and key image checks ask the daemon too (get_version,
	// gettransactions, is_key_image_spent).
	checkKey := func(w *monerodlab.WalletRPC) map[string]any {
		var r map[string]any
		if err := w.Call("check_tx_key", map[string]any{"txid": paid.Hash, "tx_key": paid.Key, "address": bobAddr.Address}, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if a, b := checkKey(bG), checkKey(bM); !reflect.DeepEqual(a, b) {
		t.Fatalf("check_tx_key: through gonerod %v, through monerod %v", a, b)
	}
	for _, w := range []*monerodlab.WalletRPC{aG, aM} {
		if err := w.Call("rescan_spent", struct{}{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	compareWallets(t, "alice after rescan_spent", aG, aM)
	step("check_tx_key and rescan_spent agree")

	// bob sweeps what he can spend back to alice through gonerod.
	var swept struct {
		Hashes []string `json:"tx_hash_list"`
	}
	if err := bG.Call("sweep_all", map[string]any{"address": aliceAddr.Address, "account_index": 0, "priority": 0}, &swept); err != nil {
		t.Fatal(err)
	}
	if len(swept.Hashes) == 0 {
		t.Fatalf("sweep_all made no transaction")
	}
	before = g.info(t)
	if err := g.call("generateblocks", map[string]any{"amount_of_blocks": 1, "wallet_address": aliceAddr.Address}, &gen); err != nil {
		t.Fatal(err)
	}
	if blk := g.block(t, before.Height); !slices.Equal(sorted(blk.TxHashes), sorted(swept.Hashes)) {
		t.Fatalf("gonerod's block %d has %v, want the sweep %v", before.Height, blk.TxHashes, swept.Hashes)
	}
	waitFor(t, 30*time.Second, "monerod at gonerod's new top", func() bool { return monerodInfo(t, m).TopHash == gen.Blocks[0] })
	for _, w := range []*monerodlab.WalletRPC{aG, aM, bG, bM} {
		refreshWallet(t, w)
	}
	rescan(t, bG, bM)
	compareWallets(t, "bob after sweeping, rescanned", bG, bM)
	compareWallets(t, "alice after bob's sweep", aG, aM)
	step("bob swept %d transaction(s) to alice through gonerod; mined; wallets agree", len(swept.Hashes))

	// Debian 12's wallet (0.18.0.0, RPC 3.10, no pool data in
	// /getblocks.bin) still refreshes and pays through gonerod: alice
	// restored in it sees her reference wallet's balance, pays bob, and
	// both see the payment mined.
	aOld := lab.StartOldWalletRPC(t, g.rpcPort)
	restore(aOld, "alice")
	balance := func(w *monerodlab.WalletRPC) (b struct {
		Balance  uint64 `json:"balance"`
		Unlocked uint64 `json:"unlocked_balance"`
	}) {
		t.Helper()
		if err := w.Call("get_balance", map[string]any{"account_index": 0}, &b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	if o, n := balance(aOld), balance(aG); o != n {
		t.Fatalf("alice's balance: Debian 12's wallet %+v, the reference wallet %+v", o, n)
	}
	var oldPaid struct {
		Hash string `json:"tx_hash"`
	}
	if err := aOld.Call("transfer", map[string]any{"destinations": []map[string]any{{"amount": 700_000_000_000, "address": bobAddr.Address}},
		"account_index": 0, "priority": 0}, &oldPaid); err != nil {
		t.Fatalf("Debian 12's wallet paying through gonerod: %v", err)
	}
	refreshWallet(t, bG)
	if err := bG.Call("get_transfer_by_txid", map[string]any{"txid": oldPaid.Hash}, &inPool); err != nil || inPool.Transfer.Type != "pool" {
		t.Fatalf("bob does not see the old wallet's payment in the pool: %v %+v", err, inPool)
	}
	before = g.info(t)
	if err := g.call("generateblocks", map[string]any{"amount_of_blocks": 1, "wallet_address": bobAddr.Address}, &gen); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*monerodlab.WalletRPC{aOld, bG} {
		refreshWallet(t, w)
	}
	if err := aOld.Call("get_transfer_by_txid", map[string]any{"txid": oldPaid.Hash}, &confirmed); err != nil ||
		confirmed.Transfer.Type != "out" || confirmed.Transfer.Height != before.Height {
		t.Fatalf("Debian 12's wallet: its payment is %+v (%v), want out at height %d", confirmed, err, before.Height)
	}
	if err := bG.Call("get_transfer_by_txid", map[string]any{"txid": oldPaid.Hash}, &confirmed); err != nil ||
		confirmed.Transfer.Type != "in" || confirmed.Transfer.Height != before.Height {
		t.Fatalf("bob: the old wallet's payment is %+v (%v), want in at height %d", confirmed, err, before.Height)
	}
	step("Debian 12's wallet (0.18.0.0) restored, paid bob through gonerod; mined at %d", before.Height)
}

// poolWatch is a proxy in front of gonerod's RPC that reads each
// /getblocks.bin request and answer passing through: how many asked for
// pool data (requested_info 1 or 2) and how many of those got it
// (pool_info_extent 1 or 2).
type poolWatch struct {
	port            int
	mu              sync.Mutex
	asked, answered int
}

func startPoolWatch(t *testing.T, target int) *poolWatch {
	t.Helper()
	w := &poolWatch{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.port = l.Addr().(*net.TCPAddr).Port
	up, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", target))
	proxy := httputil.NewSingleHostReverseProxy(up)
	proxy.ModifyResponse = func(resp *http.Response) error {
		req := resp.Request
		if req.URL.Path != "/getblocks.bin" || req.GetBody == nil {
			return nil
		}
		rb, err := req.GetBody()
		if err != nil {
			return err
		}
		reqBody, _ := io.ReadAll(rb)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		info, extent := epeeUint(reqBody, "requested_info"), epeeUint(body, "pool_info_extent")
		w.mu.Lock()
		defer w.mu.Unlock()
		if info == 1 || info == 2 {
			w.asked++
			if extent == 1 || extent == 2 {
				w.answered++
			}
		}
		return nil
	}
	// The request body is kept for ModifyResponse to read.
	handler := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		proxy.ServeHTTP(rw, r)
	})
	srv := &http.Server{Handler: handler}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return w
}

func (w *poolWatch) counts() (asked, answered int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.asked, w.answered
}

// epeeUint reads an integer member of an epee binary body (0 if absent or
// not decodable).
func epeeUint(body []byte, name string) uint64 {
	s, err := portable.Decode(body)
	if err != nil {
		return 0
	}
	v, ok := s.Get(name)
	if !ok {
		return 0
	}
	n, err := v.AsUint64()
	if err != nil {
		return 0
	}
	return n
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// rescan has wallets rebuild their view from their daemons
// (rescan_blockchain): a wallet that sent a transaction keeps what only the
// sender knows (destinations, the transaction key) until then.
func rescan(t *testing.T, wallets ...*monerodlab.WalletRPC) {
	t.Helper()
	for _, w := range wallets {
		if err := w.Call("rescan_blockchain", struct{}{}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func refreshWallet(t *testing.T, w *monerodlab.WalletRPC) {
	t.Helper()
	if err := w.Call("refresh", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
}

// walletState is everything a wallet shows of its chain, in comparable
// form.
func walletState(t *testing.T, w *monerodlab.WalletRPC) map[string]any {
	t.Helper()
	call := func(method string, params any) any {
		t.Helper()
		var r any
		if err := w.Call(method, params, &r); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return r
	}
	state := map[string]any{"height": call("get_height", struct{}{})}
	var accounts struct {
		Accounts []struct {
			Index uint32 `json:"account_index"`
		} `json:"subaddress_accounts"`
	}
	if err := w.Call("get_accounts", struct{}{}, &accounts); err != nil {
		t.Fatal(err)
	}
	state["accounts"] = call("get_accounts", struct{}{})
	for _, a := range accounts.Accounts {
		k := "account " + strconv.Itoa(int(a.Index))
		state[k+" balance"] = call("get_balance", map[string]any{"account_index": a.Index})
		state[k+" outputs"] = call("incoming_transfers", map[string]any{"transfer_type": "all", "account_index": a.Index, "verbose": true})
	}
	transfers := call("get_transfers", map[string]any{"in": true, "out": true, "pending": true, "failed": true, "pool": true, "all_accounts": true})
	// A pool transfer's timestamp is when that daemon received the
	// transaction: the one field that is the daemon's own clock.
	if tm, ok := transfers.(map[string]any); ok {
		for _, e := range asList(tm["pool"]) {
			if em, ok := e.(map[string]any); ok {
				em["timestamp"] = "(receive time)"
			}
		}
	}
	// Each list in the wallet's hash-table order (wallet2's m_confirmed_txs
	// is an unordered_map, filled as the wallet found the transactions):
	// transfers of one block can come in another order from two wallets
	// that saw the same answers. Sorted by height and txid, they compare.
	if tm, ok := transfers.(map[string]any); ok {
		for _, l := range tm {
			entries := asList(l)
			slices.SortStableFunc(entries, func(a, b any) int {
				am, _ := a.(map[string]any)
				bm, _ := b.(map[string]any)
				ah, _ := am["height"].(float64)
				bh, _ := bm["height"].(float64)
				if ah != bh {
					return cmp.Compare(ah, bh)
				}
				at, _ := am["txid"].(string)
				bt, _ := bm["txid"].(string)
				return strings.Compare(at, bt)
			})
		}
	}
	state["transfers"] = transfers
	return state
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// compareWallets requires the two wallets' states to be equal and lists
// every difference otherwise.
func compareWallets(t *testing.T, what string, throughGonerod, throughMonerod *monerodlab.WalletRPC) {
	t.Helper()
	g, m := walletState(t, throughGonerod), walletState(t, throughMonerod)
	if reflect.DeepEqual(g, m) {
		return
	}
	diffs := testutil.Diff("", g, m)
	if len(diffs) > 40 {
		diffs = append(diffs[:40], fmt.Sprintf("... and %d more", len(diffs)-40))
	}
	t.Fatalf("%s: the wallet through gonerod differs from the wallet through monerod:\n  %s", what, strings.Join(diffs, "\n  "))
}
