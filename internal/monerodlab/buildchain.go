package monerodlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The regtest chain BuildChain makes: 300 blocks (heights 0..299) mined to
// wallet alice, and 10 RingCT transactions between alice (with a
// subaddress) and bob in blocks 201 (3), 212 (1), 218 (2) and 290 (4), the
// shape of testdata/regtest (whose blocks, keys and timestamps are fixed;
// a built chain has new ones every time).
const (
	ChainHeight = 300
	ChainTxs    = 10
)

// xmr is one monero in atomic units.
const xmr = 1_000_000_000_000

// BuildChain builds a new regtest chain in dir with the reference tools on
// the PATH (monerod, monero-wallet-rpc, monero-blockchain-export), inside
// the loopback-only namespace the caller runs in: dir/node1 is monerod's
// store (the node stopped, at fixed difficulty 1), dir/wallets holds the
// wallets "alice" and "bob" (empty passwords) and dir/blockchain.raw is the
// export of the chain. Progress goes to logw. It takes about a minute.
func BuildChain(ctx context.Context, dir string, logw io.Writer) (*Chain, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"node1", "wallets"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	b := &builder{ctx: ctx, log: logw}
	defer b.stopAll()
	if err := b.run(dir); err != nil {
		return nil, err
	}
	b.stopAll()
	// The store is complete once monerod has stopped; the export reads it.
	if _, err := runTool(ctx, dir, "monero-blockchain-export", "--data-dir", filepath.Join(dir, "node1", "fake"),
		"--output-file", filepath.Join(dir, "blockchain.raw"), "--log-level", "0"); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	st, err := os.Stat(filepath.Join(dir, "blockchain.raw"))
	if err != nil {
		return nil, err
	}
	b.logf("exported %s (%d bytes)", filepath.Join(dir, "blockchain.raw"), st.Size())
	return &Chain{Dir: dir, RawFile: filepath.Join(dir, "blockchain.raw"), NodeDir: filepath.Join(dir, "node1")}, nil
}

type builder struct {
	ctx     context.Context
	log     io.Writer
	node    *Process
	wallets []*Process
	m       *Monerod
	alice   *WalletRPC
	bob     *WalletRPC
	addrA   string
	stopped bool
}

func (b *builder) logf(format string, args ...any) {
	if b.log != nil {
		fmt.Fprintf(b.log, format+"\n", args...)
	}
}

// stopAll closes the wallets (which stores them) and stops monerod.
func (b *builder) stopAll() {
	if b.stopped {
		return
	}
	b.stopped = true
	for i, w := range []*WalletRPC{b.alice, b.bob} {
		if w != nil && i < len(b.wallets) {
			_ = w.Call("stop_wallet", nil, nil)
		}
	}
	for _, p := range b.wallets {
		p.Stop(30 * time.Second)
	}
	if b.node != nil {
		b.node.Stop(60 * time.Second)
		os.Remove(filepath.Join(b.m.DataDir, "monerod.pid"))
	}
}

func (b *builder) run(dir string) error {
	rpcPort, err := freePort()
	if err != nil {
		return err
	}
	p2pPort, err := freePort()
	if err != nil {
		return err
	}
	// Fresh: monerod starts the regtest store anew.
	cfg := NodeConfig{DataDir: filepath.Join(dir, "node1"), RPCPort: rpcPort, P2PPort: p2pPort, Fresh: true}
	if b.node, err = StartNode(cfg, false, 120*time.Second); err != nil {
		return err
	}
	b.m = &Monerod{DataDir: cfg.DataDir, RPCPort: rpcPort, P2PPort: p2pPort, client: newClient(600 * time.Second)}

	var flags []string
	if walletNeedsMismatchFlag() {
		flags = append(flags, MismatchedDaemonFlag)
	}
	walletDir := filepath.Join(dir, "wallets")
	for _, name := range []string{"alice", "bob"} {
		port, err := freePort()
		if err != nil {
			return err
		}
		w, p, err := launchWalletRPC(walletDir, "monero-wallet-rpc", port, rpcPort, false, flags...)
		if err != nil {
			return err
		}
		b.wallets = append(b.wallets, p)
		if err := w.Call("create_wallet", map[string]any{"filename": name, "password": "", "language": "English"}, nil); err != nil {
			return fmt.Errorf("create_wallet %s: %w", name, err)
		}
		if name == "alice" {
			b.alice = w
		} else {
			b.bob = w
		}
	}
	addrA, err := address(b.alice)
	if err != nil {
		return err
	}
	b.addrA = addrA
	addrB, err := address(b.bob)
	if err != nil {
		return err
	}
	b.logf("alice %s\nbob   %s", addrA, addrB)

	// 1..200: coinbase to alice (a coinbase unlocks 60 blocks on); the
	// reference wallet spends only on a chain of 200 blocks or more.
	if err := b.mine(200, 0); err != nil {
		return err
	}
	if err := b.send(b.alice, addrB, 10*xmr); err != nil {
		return err
	}
	if err := b.send(b.alice, addrB, 20*xmr); err != nil {
		return err
	}
	if err := b.send(b.alice, addrB, 30*xmr); err != nil {
		return err
	}
	if err := b.mine(1, 3); err != nil { // 201
		return err
	}
	if err := b.mine(10, 0); err != nil { // 202..211
		return err
	}
	var sub struct {
		Address string `json:"address"`
	}
	if err := b.alice.Call("create_address", map[string]any{"account_index": 0, "label": "sub1"}, &sub); err != nil {
		return fmt.Errorf("create_address: %w", err)
	}
	if err := b.transfer(b.alice, dest{addrB, 1.5 * xmr}, dest{sub.Address, 2.5 * xmr}); err != nil {
		return err
	}
	if err := b.mine(1, 1); err != nil { // 212
		return err
	}
	if err := b.mine(5, 0); err != nil { // 213..217: bob's outputs of 201 are unlocked (211)
		return err
	}
	if err := b.send(b.bob, addrA, 5*xmr); err != nil {
		return err
	}
	if err := b.send(b.alice, addrB, 7*xmr); err != nil {
		return err
	}
	if err := b.mine(1, 2); err != nil { // 218
		return err
	}
	if err := b.mine(71, 0); err != nil { // 219..289
		return err
	}
	if err := b.transfer(b.bob, dest{addrA, 1 * xmr}, dest{sub.Address, 2 * xmr}); err != nil {
		return err
	}
	for _, amount := range []uint64{3 * xmr, 4 * xmr, 5 * xmr} {
		if err := b.send(b.alice, addrB, amount); err != nil {
			return err
		}
	}
	if err := b.mine(1, 4); err != nil { // 290
		return err
	}
	if err := b.mine(9, 0); err != nil { // 291..299
		return err
	}
	var info struct {
		Height       uint64 `json:"height"`
		TxCount      uint64 `json:"tx_count"`
		TopBlockHash string `json:"top_block_hash"`
	}
	if err := b.m.Call("get_info", nil, &info); err != nil {
		return err
	}
	if info.Height != ChainHeight || info.TxCount != ChainTxs {
		return fmt.Errorf("built chain has height %d and %d transactions, want %d and %d", info.Height, info.TxCount, ChainHeight, ChainTxs)
	}
	b.logf("height %d, %d transactions, top %s", info.Height, info.TxCount, info.TopBlockHash)
	return nil
}

func address(w *WalletRPC) (string, error) {
	var r struct {
		Address string `json:"address"`
	}
	if err := w.Call("get_address", map[string]any{"account_index": 0}, &r); err != nil {
		return "", fmt.Errorf("get_address: %w", err)
	}
	return r.Address, nil
}

// mine mines n blocks to alice, checking that the first holds wantTxs
// transactions (those sent before it: the whole pool).
func (b *builder) mine(n, wantTxs int) error {
	if wantTxs > 0 {
		if err := b.waitBroadcast(wantTxs); err != nil {
			return err
		}
	}
	var before struct {
		Height uint64 `json:"height"`
	}
	if err := b.m.Call("get_info", nil, &before); err != nil {
		return err
	}
	var r struct {
		Height uint64 `json:"height"`
	}
	if err := b.m.Call("generateblocks", map[string]any{"amount_of_blocks": n, "wallet_address": b.addrA}, &r); err != nil {
		return fmt.Errorf("generateblocks: %w", err)
	}
	var hdr struct {
		BlockHeader struct {
			NumTxes int `json:"num_txes"`
		} `json:"block_header"`
	}
	if err := b.m.Call("get_block_header_by_height", map[string]any{"height": before.Height}, &hdr); err != nil {
		return err
	}
	if hdr.BlockHeader.NumTxes != wantTxs {
		return fmt.Errorf("block %d holds %d transactions, want %d", before.Height, hdr.BlockHeader.NumTxes, wantTxs)
	}
	b.logf("top %d (block %d: %d txs)", r.Height, before.Height, wantTxs)
	return nil
}

// waitBroadcast waits until monerod's pool holds n transactions, each
// marked broadcast. monerod's block templates take broadcast transactions
// only, and an offline monerod marks one that came over RPC broadcast a
// moment after accepting it (on its P2P strand): mining at once would,
// on a loaded machine, leave the last ones out.
func (b *builder) waitBroadcast(n int) error {
	var pool struct {
		Transactions []struct {
			Relayed bool `json:"relayed"`
		} `json:"transactions"`
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		body, err := b.m.Post("/get_transaction_pool", []byte(`{}`))
		if err != nil {
			return err
		}
		pool.Transactions = nil
		if err := json.Unmarshal(body, &pool); err != nil {
			return fmt.Errorf("get_transaction_pool: %w", err)
		}
		relayed := 0
		for _, tx := range pool.Transactions {
			if tx.Relayed {
				relayed++
			}
		}
		if relayed >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("monerod's pool has %d transactions, %d broadcast, after 2 minutes; want %d broadcast", len(pool.Transactions), relayed, n)
		}
	}
}

type dest struct {
	address string
	amount  uint64
}

func (b *builder) send(w *WalletRPC, to string, amount uint64) error {
	return b.transfer(w, dest{to, amount})
}

// transfer has w pay dests from account 0, after a refresh; a wallet that
// has not yet seen its unlocked outputs is refreshed and asked again.
func (b *builder) transfer(w *WalletRPC, dests ...dest) error {
	var ds []map[string]any
	for _, d := range dests {
		ds = append(ds, map[string]any{"amount": d.amount, "address": d.address})
	}
	var lastErr error
	for try := 0; try < 5; try++ {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		if err := w.Call("refresh", struct{}{}, nil); err != nil {
			lastErr = err
			time.Sleep(time.Second)
			continue
		}
		var r struct {
			TxHash string `json:"tx_hash"`
		}
		err := w.Call("transfer", map[string]any{"destinations": ds, "account_index": 0, "priority": 0}, &r)
		if err == nil && r.TxHash != "" {
			b.logf("tx %s", r.TxHash)
			return nil
		}
		if err == nil {
			err = errors.New("transfer: no tx_hash in the answer")
		}
		lastErr = err
		time.Sleep(time.Second)
	}
	return fmt.Errorf("transfer: %w", lastErr)
}

// walletNeedsMismatchFlag reports whether the monero-wallet-rpc on the PATH
// knows MismatchedDaemonFlag (0.18.4 and later, which need it on regtest).
func walletNeedsMismatchFlag() bool {
	out, _ := exec.Command("monero-wallet-rpc", "--help").CombinedOutput()
	return strings.Contains(string(out), MismatchedDaemonFlag)
}
