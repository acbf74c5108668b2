package monerodlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// HeavyOptions shape BuildHeavyChain's chain.
type HeavyOptions struct {
	Txs      int    // non-coinbase transactions wanted, at least (default 2000)
	Wallets  int    // 3..8 (default 6)
	Parallel int    // wallets building transactions at once (default 3)
	Seed     uint64 // of the random shapes and amounts (default: the clock)
}

// heavyCoinbaseHeight is where the coinbase phase ends: the reference
// wallet spends only on a chain of 200 blocks or more, and ring size 16
// needs unlocked outputs (60 blocks) to pick decoys from.
const heavyCoinbaseHeight = 200

// smallOutput: outputs below 0.2 XMR count as small (swept together).
const smallOutput = xmr / 5

// BuildHeavyChain builds a transaction-heavy regtest chain in dir, for
// timing verification (import, wallet sync) on transactions rather than on
// proof of work: at least o.Txs RingCT transactions (CLSAG, Bulletproofs+,
// ring 16) of varied shapes between o.Wallets wallets, each with a second
// account and subaddresses. After ~200 blocks of coinbase to random
// wallets, block after block a random number of transactions (0 to 40)
// enter the pool before the next block is mined to a random wallet:
// mostly one destination (a primary address, a subaddress or an integrated
// address, one or two inputs), some to 2..7 destinations, some payouts to
// 15 destinations (16 outputs), now and then a sweep of an account's small
// outputs or of a whole second account; some multi-destination payments go
// through transfer_split. Keys, hashes and the wallets' own choices differ
// on every run, even with one seed.
//
// Output (earlier output in dir is removed): dir/blockchain.raw,
// dir/node1 (monerod's store, stopped), dir/wallets (w1..wN, empty
// passwords), dir/summary.txt (key=value lines: seed, blocks, txs, inputs,
// outputs, shapes, ...). Progress goes to logw. About 4 minutes for 2,000
// transactions on 2 cores. Like BuildChain it runs the reference tools of
// the PATH in the caller's (loopback-only) namespace.
func BuildHeavyChain(ctx context.Context, dir string, o HeavyOptions, logw io.Writer) (*Chain, error) {
	if o.Txs <= 0 {
		o.Txs = 2000
	}
	if o.Wallets == 0 {
		o.Wallets = 6
	}
	if o.Wallets < 3 || o.Wallets > 8 {
		return nil, fmt.Errorf("heavy chain: %d wallets, want 3..8", o.Wallets)
	}
	if o.Parallel <= 0 {
		o.Parallel = 3
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().Unix())
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"node1", "wallets", "blockchain.raw", "summary.txt", "monero-blockchain-export.log"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "wallets"), 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	h := &heavy{ctx: ctx, o: o, log: logw, rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), stats: map[string]int{}, errs: map[string]int{}}
	h.logf("heavy chain: seed %d, %d transactions, %d wallets, in %s", o.Seed, o.Txs, o.Wallets, dir)
	summary, err := h.run(dir)
	h.stopAll()
	if err != nil {
		return nil, err
	}
	if _, err := runTool(ctx, dir, "monero-blockchain-export", "--data-dir", filepath.Join(dir, "node1", "fake"),
		"--output-file", filepath.Join(dir, "blockchain.raw"), "--log-level", "0"); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	st, err := os.Stat(filepath.Join(dir, "blockchain.raw"))
	if err != nil {
		return nil, err
	}
	summary = append(summary, fmt.Sprintf("file_bytes=%d", st.Size()), fmt.Sprintf("build_seconds=%.0f", time.Since(start).Seconds()))
	text := fmt.Sprintf("# heavy chain %s: TXS=%d WALLETS=%d PARALLEL=%d; key=value, source-able\n%s\n",
		time.Now().UTC().Format(time.RFC3339), o.Txs, o.Wallets, o.Parallel, strings.Join(summary, "\n"))
	if err := os.WriteFile(filepath.Join(dir, "summary.txt"), []byte(text), 0o644); err != nil {
		return nil, err
	}
	h.logf("%s", text)
	return &Chain{Dir: dir, RawFile: filepath.Join(dir, "blockchain.raw"), NodeDir: filepath.Join(dir, "node1")}, nil
}

type heavy struct {
	ctx     context.Context
	o       HeavyOptions
	log     io.Writer
	rng     *rand.Rand
	mu      sync.Mutex // stats, errs, log
	stats   map[string]int
	errs    map[string]int
	node    *Process
	m       *Monerod
	procs   []*Process
	wallets []*heavyWallet
}

type heavyWallet struct {
	name       string
	w          *WalletRPC
	primary    string
	subs       []string // of both accounts
	integrated []string
	avail      [2][]uint64 // unlocked, unspent amounts per account, after the last refresh
}

func (h *heavy) logf(format string, args ...any) {
	if h.log == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	fmt.Fprintf(h.log, format+"\n", args...)
}

func (h *heavy) stopAll() {
	for _, w := range h.wallets {
		_ = w.w.Call("store", nil, nil)
		_ = w.w.Call("stop_wallet", nil, nil)
	}
	for _, p := range h.procs {
		p.Stop(30 * time.Second)
	}
	h.procs, h.wallets = nil, nil
	if h.node != nil {
		h.node.Stop(60 * time.Second)
		os.Remove(filepath.Join(h.m.DataDir, "monerod.pid"))
		h.node = nil
	}
}

func (h *heavy) height() (uint64, error) {
	var info struct {
		Height uint64 `json:"height"`
	}
	err := h.m.Call("get_info", nil, &info)
	return info.Height, err
}

func (h *heavy) mine(n int, addr string) error {
	return h.m.Call("generateblocks", map[string]any{"amount_of_blocks": n, "wallet_address": addr}, nil)
}

// retry calls f up to 3 times: a wallet's link to a busy daemon fails now
// and then.
func retry(f func() error) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = f(); err == nil {
			return nil
		}
		time.Sleep(2 * time.Second)
	}
	return err
}

func (h *heavy) newWallet(i int, w *WalletRPC) (*heavyWallet, error) {
	rng := rand.New(rand.NewPCG(h.o.Seed*10+uint64(i), 1))
	hw := &heavyWallet{name: fmt.Sprintf("w%d", i), w: w}
	if err := w.Call("create_wallet", map[string]any{"filename": hw.name, "password": "", "language": "English"}, nil); err != nil {
		return nil, err
	}
	if err := w.Call("auto_refresh", map[string]any{"enable": false}, nil); err != nil {
		return nil, err
	}
	var err error
	if hw.primary, err = address(w); err != nil {
		return nil, err
	}
	var a struct {
		Address string `json:"address"`
	}
	for k := 3 + rng.IntN(4); k > 0; k-- {
		if err := w.Call("create_address", map[string]any{"account_index": 0}, &a); err != nil {
			return nil, err
		}
		hw.subs = append(hw.subs, a.Address)
	}
	if err := w.Call("create_account", map[string]any{"label": "savings"}, &a); err != nil {
		return nil, err
	}
	hw.subs = append(hw.subs, a.Address)
	for k := 1 + rng.IntN(3); k > 0; k-- {
		if err := w.Call("create_address", map[string]any{"account_index": 1}, &a); err != nil {
			return nil, err
		}
		hw.subs = append(hw.subs, a.Address)
	}
	for k := 0; k < 24; k++ {
		var ia struct {
			IntegratedAddress string `json:"integrated_address"`
		}
		if err := w.Call("make_integrated_address", struct{}{}, &ia); err != nil {
			return nil, err
		}
		hw.integrated = append(hw.integrated, ia.IntegratedAddress)
	}
	return hw, nil
}

func (hw *heavyWallet) refresh() error {
	if err := retry(func() error { return hw.w.Call("refresh", struct{}{}, nil) }); err != nil {
		return err
	}
	for acc := 0; acc < 2; acc++ {
		var r struct {
			Transfers []struct {
				Amount   uint64 `json:"amount"`
				Unlocked bool   `json:"unlocked"`
				Frozen   bool   `json:"frozen"`
			} `json:"transfers"`
		}
		if err := retry(func() error {
			return hw.w.Call("incoming_transfers", map[string]any{"transfer_type": "available", "account_index": acc}, &r)
		}); err != nil {
			return err
		}
		hw.avail[acc] = hw.avail[acc][:0]
		for _, t := range r.Transfers {
			if t.Unlocked && !t.Frozen {
				hw.avail[acc] = append(hw.avail[acc], t.Amount)
			}
		}
		slices.Sort(hw.avail[acc])
	}
	return nil
}

// eachWallet runs f on every wallet, at most par at once.
func eachWallet[T any](ws []T, par int, f func(T) error) error {
	sem := make(chan struct{}, par)
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(w)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

type heavyJob struct {
	method string
	params map[string]any
	shape  string
}

func (h *heavy) run(dir string) ([]string, error) {
	rpcPort, err := freePort()
	if err != nil {
		return nil, err
	}
	p2pPort, err := freePort()
	if err != nil {
		return nil, err
	}
	cfg := NodeConfig{DataDir: filepath.Join(dir, "node1"), RPCPort: rpcPort, P2PPort: p2pPort, Fresh: true}
	if h.node, err = StartNode(cfg, false, 120*time.Second); err != nil {
		return nil, err
	}
	h.m = &Monerod{DataDir: cfg.DataDir, RPCPort: rpcPort, P2PPort: p2pPort, client: newClient(600 * time.Second)}
	var flags []string
	if walletNeedsMismatchFlag() {
		flags = append(flags, MismatchedDaemonFlag)
	}
	for i := 1; i <= h.o.Wallets; i++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		w, p, err := launchWalletRPC(filepath.Join(dir, "wallets"), "monero-wallet-rpc", port, rpcPort, false, flags...)
		if err != nil {
			return nil, err
		}
		h.procs = append(h.procs, p)
		hw, err := h.newWallet(i, w)
		if err != nil {
			return nil, fmt.Errorf("wallet %d: %w", i, err)
		}
		h.wallets = append(h.wallets, hw)
	}
	// Coinbase, in random runs to random wallets.
	for ht, err := h.height(); ht < heavyCoinbaseHeight; ht, err = h.height() {
		if err != nil {
			return nil, err
		}
		n := min(1+h.rng.IntN(6), int(heavyCoinbaseHeight-ht))
		if err := h.mine(n, h.pick().primary); err != nil {
			return nil, err
		}
	}
	h.logf("coinbase done: height %d", heavyCoinbaseHeight)

	sent, stall, blocks := 0, 0, 0
	t0 := time.Now()
	for sent < h.o.Txs {
		if err := h.ctx.Err(); err != nil {
			return nil, err
		}
		if err := eachWallet(h.wallets, len(h.wallets), (*heavyWallet).refresh); err != nil {
			return nil, err
		}
		unlocked := 0
		for _, w := range h.wallets {
			unlocked += len(w.avail[0]) + len(w.avail[1])
		}
		fanout := unlocked < 400
		var k int
		switch r := h.rng.Float64(); {
		case r < 0.08:
			k = 0
		case r < 0.45:
			k = 1 + h.rng.IntN(8)
		case r < 0.8:
			k = 9 + h.rng.IntN(12)
		default:
			k = 21 + h.rng.IntN(20)
		}
		k = min(k, h.o.Txs-sent)
		// Spenders (wallet, account) weighted by their unlocked outputs not yet planned.
		left := map[*heavyWallet]*[2][]uint64{}
		for _, w := range h.wallets {
			a := [2][]uint64{slices.Clone(w.avail[0]), slices.Clone(w.avail[1])}
			left[w] = &a
		}
		jobs := map[*heavyWallet][]heavyJob{}
		for ; k > 0; k-- {
			total := 0
			for _, w := range h.wallets {
				total += len(left[w][0]) + len(left[w][1])
			}
			if total == 0 {
				break
			}
			pickN := h.rng.IntN(total)
			var w *heavyWallet
			acc := 0
		pick:
			for _, c := range h.wallets {
				for a := 0; a < 2; a++ {
					if pickN < len(left[c][a]) {
						w, acc = c, a
						break pick
					}
					pickN -= len(left[c][a])
				}
			}
			jobs[w] = append(jobs[w], h.plan(w, acc, &left[w][acc], fanout))
		}
		var withJobs []*heavyWallet
		for _, w := range h.wallets {
			if len(jobs[w]) > 0 {
				withJobs = append(withJobs, w)
			}
		}
		var mu sync.Mutex
		now := 0
		_ = eachWallet(withJobs, h.o.Parallel, func(w *heavyWallet) error {
			n := h.runJobs(w, jobs[w])
			mu.Lock()
			now += n
			mu.Unlock()
			return nil
		})
		sent += now
		blocks++
		if now == 0 && len(withJobs) > 0 {
			stall++
		} else {
			stall = 0
		}
		if stall > 30 {
			return nil, fmt.Errorf("no transaction went through in 30 blocks in a row: %v", h.errs)
		}
		nb := 1
		if h.rng.Float64() >= 0.95 {
			nb = 2 + h.rng.IntN(2)
		}
		if err := h.mine(nb, h.pick().primary); err != nil {
			return nil, err
		}
		if blocks%10 == 0 {
			ht, _ := h.height()
			h.logf("height %d: %d/%d transactions sent (%.2f s each), %d unlocked outputs, fan-out %v",
				ht, sent, h.o.Txs, time.Since(t0).Seconds()/float64(max(sent, 1)), unlocked, fanout)
		}
	}
	// The pool drains into the next blocks.
	for i := 0; i < 10; i++ {
		var info struct {
			TxPoolSize int `json:"tx_pool_size"`
		}
		if err := h.m.Call("get_info", nil, &info); err != nil {
			return nil, err
		}
		if info.TxPoolSize == 0 {
			break
		}
		if err := h.mine(1, h.pick().primary); err != nil {
			return nil, err
		}
	}
	h.logf("sent %d transactions; shapes %v; failures %v", sent, h.stats, h.errs)
	return h.count(time.Since(t0))
}

func (h *heavy) pick() *heavyWallet { return h.wallets[h.rng.IntN(len(h.wallets))] }

func (h *heavy) others(w *heavyWallet) []*heavyWallet {
	var out []*heavyWallet
	for _, x := range h.wallets {
		if x != w {
			out = append(out, x)
		}
	}
	return out
}

func (h *heavy) addr(w *heavyWallet, kind string) string {
	switch kind {
	case "primary":
		return w.primary
	case "sub":
		return w.subs[h.rng.IntN(len(w.subs))]
	}
	return w.integrated[h.rng.IntN(len(w.integrated))]
}

func remove(s *[]uint64, x uint64) {
	if i := slices.Index(*s, x); i >= 0 {
		*s = slices.Delete(*s, i, i+1)
	}
}

func randOf[T any](rng *rand.Rand, s []T) T { return s[rng.IntN(len(s))] }

// plan is one transaction of w from account acc; it takes from avail (the
// account's unlocked amounts not yet planned) the outputs it will likely
// spend.
func (h *heavy) plan(w *heavyWallet, acc int, avail *[]uint64, fanout bool) heavyJob {
	rng := h.rng
	var small []uint64
	for _, a := range *avail {
		if a < smallOutput {
			small = append(small, a)
		}
	}
	others := h.others(w)
	r := rng.Float64()
	if len(small) >= 16 && r < 0.06 {
		dest := w.primary
		if rng.Float64() >= 0.6 {
			dest = randOf(rng, others).primary
		}
		for _, x := range small {
			remove(avail, x)
		}
		return heavyJob{"sweep_all", map[string]any{"address": dest, "account_index": acc, "subaddr_indices_all": true,
			"below_amount": smallOutput, "priority": randOf(rng, []int{0, 0, 1, 2})}, "sweep_small"}
	}
	if acc == 1 && len(*avail) >= 4 && r < 0.08 {
		*avail = (*avail)[:0]
		return heavyJob{"sweep_all", map[string]any{"address": h.pick().primary, "account_index": 1, "subaddr_indices_all": true,
			"priority": randOf(rng, []int{0, 1})}, "sweep_account"}
	}
	big := slices.Max(*avail)
	r = rng.Float64()
	p16 := 0.05
	if fanout {
		p16 = 0.25
	}
	var dests []string
	var amounts []uint64
	var shape string
	switch {
	case big > 2*xmr && r < p16:
		// A payout: 15 destinations (16 outputs) of small amounts, often all to one wallet's subaddresses.
		const n = 15
		if rng.Float64() < 0.5 {
			to := randOf(rng, others)
			for i := 0; i < n; i++ {
				kind := "sub"
				if rng.Float64() >= 0.8 {
					kind = "primary"
				}
				dests = append(dests, h.addr(to, kind))
			}
		} else {
			for i := 0; i < n; i++ {
				dests = append(dests, h.addr(randOf(rng, others), randOf(rng, []string{"primary", "sub", "sub"})))
			}
		}
		hi := math.Max(math.Min(float64(big)*0.8/n, 0.6*xmr), 0.004*xmr)
		for i := 0; i < n; i++ {
			a := uint64(math.Exp(math.Log(0.003*xmr)+rng.Float64()*(math.Log(hi)-math.Log(0.003*xmr)))) / 1e6 * 1e6
			amounts = append(amounts, max(a, 1e7))
		}
		remove(avail, big)
		shape = "payout16"
	case r < p16+0.07 && big > xmr/2:
		n := 2 + rng.IntN(6)
		for i := 0; i < n; i++ {
			dests = append(dests, h.addr(randOf(rng, others), randOf(rng, []string{"primary", "sub"})))
			a := uint64(float64(big)*(0.01+rng.Float64()*0.69)/float64(n)) / 1e7 * 1e7
			amounts = append(amounts, max(a, 1e8))
		}
		remove(avail, big)
		shape = "multi"
	default:
		to, kind := w, "sub" // now and then to its own other account or subaddress
		if rng.Float64() < 0.93 {
			to = randOf(rng, others)
			switch r := rng.Float64(); {
			case r < 0.45:
				kind = "primary"
			case r < 0.78:
				kind = "sub"
			default:
				kind = "integrated"
			}
		}
		dests = []string{h.addr(to, kind)}
		var amt uint64
		if len(*avail) >= 2 && rng.Float64() < 0.3 {
			// More than the larger of two outputs: two inputs at least.
			i, j := rng.IntN(len(*avail)), rng.IntN(len(*avail)-1)
			if j >= i {
				j++
			}
			x, y := (*avail)[i], (*avail)[j]
			if x > y {
				x, y = y, x
			}
			amt = y + uint64(float64(x)*(0.1+rng.Float64()*0.7))
			remove(avail, x)
			remove(avail, y)
			shape = "simple_2in"
		} else {
			x := randOf(rng, *avail)
			amt = uint64(float64(x) * math.Exp(math.Log(0.01)+rng.Float64()*(math.Log(0.9)-math.Log(0.01))))
			remove(avail, x)
			shape = "simple"
		}
		amounts = []uint64{max(amt/1e7*1e7, 1e8)}
	}
	var ds []map[string]any
	for i := range dests {
		ds = append(ds, map[string]any{"amount": amounts[i], "address": dests[i]})
	}
	method := "transfer"
	if (shape == "payout16" || shape == "multi") && rng.Float64() < 0.35 {
		method = "transfer_split"
	}
	return heavyJob{method, map[string]any{"destinations": ds, "account_index": acc,
		"priority": randOf(rng, []int{0, 0, 0, 1, 1, 2, 3})}, shape}
}

// runJobs has w make its transactions in order; it returns how many went
// to the pool (a failed one is counted by its error and skipped).
func (h *heavy) runJobs(w *heavyWallet, jobs []heavyJob) int {
	n := 0
	for _, j := range jobs {
		var r struct {
			TxHash     string   `json:"tx_hash"`
			TxHashList []string `json:"tx_hash_list"`
		}
		err := w.w.Call(j.method, j.params, &r)
		h.mu.Lock()
		if err != nil {
			msg := err.Error()
			if len(msg) > 90 {
				msg = msg[:90]
			}
			h.errs[msg]++
			h.stats["failed"]++
		} else {
			h.stats[j.shape]++
			if j.method == "transfer_split" {
				h.stats["split"]++
			}
			if r.TxHash != "" {
				n++
			}
			n += len(r.TxHashList)
		}
		h.mu.Unlock()
	}
	return n
}

// count reads the chain back from monerod for the summary.
func (h *heavy) count(txTime time.Duration) ([]string, error) {
	height, err := h.height()
	if err != nil {
		return nil, err
	}
	var perBlock []int
	var hashes []string
	for lo := uint64(0); lo < height; lo += 500 {
		var r struct {
			Headers []struct {
				Height  uint64 `json:"height"`
				NumTxes int    `json:"num_txes"`
			} `json:"headers"`
		}
		if err := h.m.Call("get_block_headers_range", map[string]any{"start_height": lo, "end_height": min(lo+499, height-1)}, &r); err != nil {
			return nil, err
		}
		for _, hd := range r.Headers {
			if hd.Height > 0 {
				perBlock = append(perBlock, hd.NumTxes)
			}
			if hd.NumTxes == 0 {
				continue
			}
			var b struct {
				TxHashes []string `json:"tx_hashes"`
			}
			if err := h.m.Call("get_block", map[string]any{"height": hd.Height}, &b); err != nil {
				return nil, err
			}
			hashes = append(hashes, b.TxHashes...)
		}
	}
	var nin, nout, maxIn int
	ins, outs, types := map[string]int{}, map[string]int{}, map[int]int{}
	for lo := 0; lo < len(hashes); lo += 50 {
		req, _ := json.Marshal(map[string]any{"txs_hashes": hashes[lo:min(lo+50, len(hashes))], "decode_as_json": true})
		body, err := h.m.Post("/get_transactions", req)
		if err != nil {
			return nil, err
		}
		var r struct {
			Txs []struct {
				AsJSON string `json:"as_json"`
			} `json:"txs"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, fmt.Errorf("get_transactions: %w", err)
		}
		for _, t := range r.Txs {
			var tx struct {
				Vin  []json.RawMessage `json:"vin"`
				Vout []json.RawMessage `json:"vout"`
				Rct  struct {
					Type int `json:"type"`
				} `json:"rct_signatures"`
			}
			if err := json.Unmarshal([]byte(t.AsJSON), &tx); err != nil {
				return nil, fmt.Errorf("get_transactions: %w", err)
			}
			a, b := len(tx.Vin), len(tx.Vout)
			nin, nout, maxIn = nin+a, nout+b, max(maxIn, a)
			ins[bucket(a, []int{1, 2, 9, 49}, []string{"1", "2", "3-9", "10-49", "50+"})]++
			outs[bucket(b, []int{1, 2, 8, 15}, []string{"1", "2", "3-8", "9-15", "16"})]++
			types[tx.Rct.Type]++
		}
	}
	if len(hashes) < h.o.Txs {
		return nil, fmt.Errorf("only %d transactions in the chain, %d wanted", len(hashes), h.o.Txs)
	}
	first := slices.IndexFunc(perBlock, func(n int) bool { return n > 0 })
	first = max(first, 0)
	tail := perBlock[first:]
	sum, maxTx, empty := 0, 0, 0
	for _, n := range tail {
		sum, maxTx = sum+n, max(maxTx, n)
		if n == 0 {
			empty++
		}
	}
	hist := func(m map[string]int, order []string) string {
		var parts []string
		for _, k := range order {
			if m[k] > 0 {
				parts = append(parts, fmt.Sprintf("%s:%d", k, m[k]))
			}
		}
		return strings.Join(parts, " ")
	}
	var typeKeys []int
	for k := range types {
		typeKeys = append(typeKeys, k)
	}
	sort.Ints(typeKeys)
	var rct []string
	for _, k := range typeKeys {
		rct = append(rct, fmt.Sprintf("%d:%d", k, types[k]))
	}
	shapes := []string{}
	for _, k := range []string{"simple", "simple_2in", "multi", "payout16", "sweep_small", "sweep_account", "split", "failed"} {
		shapes = append(shapes, fmt.Sprintf("%s:%d", k, h.stats[k]))
	}
	h.logf("counted: %d blocks, %d transactions, %d inputs, %d outputs", height, len(hashes), nin, nout)
	return []string{
		fmt.Sprintf("seed=%d", h.o.Seed), fmt.Sprintf("wallets=%d", h.o.Wallets), fmt.Sprintf("blocks=%d", height),
		fmt.Sprintf("txs=%d", len(hashes)), fmt.Sprintf("inputs=%d", nin), fmt.Sprintf("outputs=%d", nout),
		fmt.Sprintf("max_inputs=%d", maxIn),
		fmt.Sprintf("tx_inputs_hist='%s'", hist(ins, []string{"1", "2", "3-9", "10-49", "50+"})),
		fmt.Sprintf("tx_outputs_hist='%s'", hist(outs, []string{"1", "2", "3-8", "9-15", "16"})),
		fmt.Sprintf("rct_types='%s'", strings.Join(rct, " ")),
		fmt.Sprintf("txs_per_block='max %d, mean %.1f over %d blocks from height %d, %d of them empty'",
			maxTx, float64(sum)/float64(max(len(tail), 1)), len(tail), first+1, empty),
		fmt.Sprintf("shapes='%s'", strings.Join(shapes, " ")),
		fmt.Sprintf("tx_seconds=%.0f", txTime.Seconds()),
	}, nil
}

// bucket names n by the first upper bound it does not exceed.
func bucket(n int, bounds []int, names []string) string {
	for i, b := range bounds {
		if n <= b {
			return names[i]
		}
	}
	return names[len(names)-1]
}
