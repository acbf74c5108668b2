// Command abuse attacks a gonerod and monerod 0.18.5.3, both with
// --restricted-rpc on the same transaction-heavy regtest chain, and measures
// what a legitimate client gets meanwhile; bench/abuse.sh runs it inside the
// loopback-only network namespace.
//
//	abuse -gonerod BIN -chain DIR [-d 15s] [-nodes gonerod,monerod] [-attacks a,b,...] [-out FILE]
//
// DIR is a monerodlab.BuildHeavyChain directory (blockchain.raw, node1).
// Each attack runs for -d against one node while a legitimate client on its
// own address (127.0.0.200) makes get_info, getblockheaderbyheight and small
// /getblocks.bin requests, each on a new connection (a wallet or explorer
// that comes and goes, not one that kept a connection from before the
// flood), one every 20 ms at most; a refused, closed or timed-out
// connection is a failed request. Attackers use 127.N.0.1 on, a /16 per attack; the RPC
// attacks are those an outside check of issue 25 ran: connections held and
// connections reconnecting as soon as closed, numerous enough to hold
// monerod's 100-connection cap (25 per loopback address), and keep-alive
// connections looping the costliest requests. Every loop is bounded by the
// attack's deadline, and every dial, read and write by a timeout.
// The result is a markdown table (stdout, and -out): per attack and node the
// legitimate client's success rate (of its requests, and of the time: a
// request weighs the time until the next one), p50 and p99, the node's peak RSS, the
// recovery time (from the attack's end until five requests in a row succeed
// within 250 ms), and whether the node crashed; gonerod's rows are marked
// against the targets (>= 95 % of the requests and of the time, p99 <= 250
// ms, RSS < 512 MB, recovery <= 2 s, no crash).
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"

	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/portable"
)

// Targets for gonerod (issue 25).
const (
	targetSuccess  = 95.0
	targetP99      = 250 * time.Millisecond
	targetRSS      = 512 << 20
	targetRecovery = 2 * time.Second
	// targetRSSAll is all-at-once's (issue 33).
	targetRSSAll = 1 << 30
	// recovered: this many legitimate requests in a row, each within
	// targetP99, end the recovery.
	recoveredRun = 5
	maxRecovery  = 30 * time.Second
	legitTimeout = 5 * time.Second
	// legitInterval: the legitimate client starts a request this often at
	// most; rampUp: the attack runs this long before it starts.
	legitInterval = 20 * time.Millisecond
	rampUp        = time.Second
	legitAddr     = "127.0.0.200"
)

var (
	gonerodBin  = flag.String("gonerod", "", "gonerod binary")
	chainDir    = flag.String("chain", "", "heavy chain directory (blockchain.raw, node1)")
	attackFor   = flag.Duration("d", 15*time.Second, "duration of each attack")
	nodesFlag   = flag.String("nodes", "gonerod,monerod", "nodes to attack")
	attacksFlag = flag.String("attacks", "", "attacks to run (default: all)")
	outFile     = flag.String("out", "", "also write the markdown table here")
	workDir     = flag.String("work", "", "work directory (default: a temporary one, removed)")
	syncBlocks  = flag.Int("sync-blocks", 0, "blocks the syncing node must reach (default: the whole chain)")
	allFor      = flag.Duration("all-d", 60*time.Second, "duration of all-at-once")
	allSkip     = flag.String("all-skip", "", "floods all-at-once leaves out (comma-separated names)")
	logLevel    = flag.String("log-level", "warn", "gonerod's --log-level (debug logs every refusal and eviction; with -work the log is kept)")
	gonerodArgs = flag.String("gonerod-args", "", "more flags for the attacked gonerod, space-separated (e.g. \"--memory-limit 0\")")
)

func main() {
	flag.Parse()
	if *childAttack != "" {
		initFDTokens()
		if err := childMain(); err != nil {
			fmt.Fprintln(os.Stderr, "abuse (attacker process):", err)
			os.Exit(1)
		}
		return
	}
	if *attackerNice < 0 || *attackerNice > 19 {
		fmt.Fprintln(os.Stderr, "abuse: -attacker-nice must be 0..19")
		os.Exit(2)
	}
	if *gonerodBin == "" || *chainDir == "" {
		fmt.Fprintln(os.Stderr, "abuse: -gonerod and -chain are required")
		os.Exit(2)
	}
	initFDTokens()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "abuse:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s abuse: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// node is one attacked daemon.
type node struct {
	name     string
	rpc, p2p int
	zmq      int // the ZMQ RPC port (restricted, as the HTTP RPC)
	metrics  int // gonerod's metrics port (0: none), for goMemory
	pid      func() int
	alive    func() bool
	restart  func() error
	stop     func()
}

func (n *node) url() string { return "http://127.0.0.1:" + strconv.Itoa(n.rpc) }

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func run(ctx context.Context) error {
	work := *workDir
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "gonero-abuse-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	raw := filepath.Join(*chainDir, "blockchain.raw")
	var nodes []*node
	defer func() {
		for _, n := range nodes {
			n.stop()
		}
	}()
	for _, name := range strings.Split(*nodesFlag, ",") {
		var n *node
		var err error
		switch name {
		case "gonerod":
			n, err = startGonerod(ctx, filepath.Join(work, "gonerod"), raw)
		case "monerod":
			n, err = startMonerod(filepath.Join(work, "monerod"))
		default:
			err = fmt.Errorf("unknown node %q", name)
		}
		if err != nil {
			return err
		}
		nodes = append(nodes, n)
	}
	data, err := chainFacts(nodes[0].url())
	if err != nil {
		return err
	}
	if err := sameHeight(nodes, data.height); err != nil {
		return err
	}
	for _, n := range nodes {
		if err := ready(ctx, n, data); err != nil {
			return err
		}
		if err := prepare(n, data); err != nil {
			return err
		}
	}
	logf("chain: height %d, %d RingCT outputs, %d transaction ids sampled", data.height, data.outputs, len(data.txs))
	all := attacks()
	chosen := all
	if *attacksFlag != "" {
		chosen = nil
		for _, name := range strings.Split(*attacksFlag, ",") {
			i := slices.IndexFunc(all, func(a attack) bool { return a.name == name })
			if i < 0 {
				return fmt.Errorf("unknown attack %q", name)
			}
			chosen = append(chosen, all[i])
		}
	}
	var rows []row
	for ai, a := range chosen {
		for _, n := range nodes {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !n.alive() {
				logf("%s is down; restarting it", n.name)
				if err := n.restart(); err != nil {
					return err
				}
			}
			// Every node serves the whole chain: a node at another
			// height (a store copied empty, an import cut short) would
			// measure a different, cheaper node.
			if err := ready(ctx, n, data); err != nil {
				return err
			}
			r := measure(withNet(ctx, 1+ai), a, n, data)
			logf("%-22s %-8s ok %5.1f%% (time %5.1f%%)  p50 %6.1f ms  p99 %7.1f ms  rss %4d MB  recovery %s  %s", a.name, n.name,
				r.success, r.servedTime, ms(r.p50), ms(r.p99), r.rss>>20, fmtRecovery(r.recovery), r.note)
			rows = append(rows, r)
		}
	}
	table := render(rows)
	fmt.Print(table)
	if *outFile != "" {
		return os.WriteFile(*outFile, []byte(table), 0o644)
	}
	return nil
}

// ---- nodes -----------------------------------------------------------------------------------------------

func startGonerod(ctx context.Context, dir, raw string) (*node, error) {
	start := time.Now()
	out, err := exec.CommandContext(ctx, *gonerodBin, "import", "--regtest", "--fixed-difficulty", "1", "--data-dir", dir,
		"--input-file", raw).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("gonerod import: %v\n%s", err, out)
	}
	logf("gonerod imported the chain in %.1f s", time.Since(start).Seconds())
	n := &node{name: "gonerod", rpc: freePort(), p2p: freePort(), zmq: freePort(), metrics: freePort()}
	var cmd *exec.Cmd
	var exited chan struct{}
	launch := func() error {
		logFile, err := os.OpenFile(filepath.Join(dir, "gonerod.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		cmd = exec.Command(*gonerodBin, "--regtest", "--fixed-difficulty", "1", "--data-dir", dir, "--restricted-rpc",
			"--zmq-rpc-bind-port", strconv.Itoa(n.zmq), "--restricted-zmq-rpc", "--rpc-bind-port", strconv.Itoa(n.rpc), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(n.p2p),
			"--rpc-use-ipv6", "--rpc-bind-ipv6-address", "::1", // rpc-addr-churn-v6
			"--log-level", *logLevel, "--metrics-bind-port", strconv.Itoa(n.metrics))
		cmd.Args = append(cmd.Args, strings.Fields(*gonerodArgs)...)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if err := cmd.Start(); err != nil {
			logFile.Close()
			return err
		}
		exited = make(chan struct{})
		go func(c *exec.Cmd, done chan struct{}) { _ = c.Wait(); logFile.Close(); close(done) }(cmd, exited)
		return waitRPC(n.url(), 60*time.Second)
	}
	n.pid = func() int { return cmd.Process.Pid }
	n.alive = func() bool {
		select {
		case <-exited:
			return false
		default:
			return true
		}
	}
	n.restart = launch
	n.stop = func() {
		if cmd == nil || !n.alive() {
			return
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	if err := launch(); err != nil {
		n.stop()
		return nil, fmt.Errorf("gonerod: %w", err)
	}
	return n, nil
}

func startMonerod(dir string) (*node, error) {
	if out, err := exec.Command("cp", "-a", filepath.Join(*chainDir, "node1")+"/.", dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copying monerod's store: %v %s", err, out)
	}
	_ = os.Remove(filepath.Join(dir, "monerod.pid"))
	n := &node{name: "monerod", rpc: freePort(), p2p: freePort(), zmq: freePort()}
	var p *monerodlab.Process
	// Online (it serves the syncing node) but with one exclusive peer
	// that is not there: it dials nothing else.
	// Its ZMQ RPC on n.zmq, restricted (monerodlab turns ZMQ on with a
	// publisher).
	cfg := monerodlab.NodeConfig{DataDir: dir, RPCPort: n.rpc, P2PPort: n.p2p, Online: true, Restricted: true,
		ZMQPub: "tcp://127.0.0.1:" + strconv.Itoa(freePort()), ZMQRPCPort: n.zmq,
		Extra: []string{"--add-exclusive-node", "127.0.0.1:" + strconv.Itoa(freePort()), "--restricted-zmq-rpc",
			"--rpc-use-ipv6", "--rpc-bind-ipv6-address", "::1"}} // rpc-addr-churn-v6
	launch := func() error {
		var err error
		p, err = monerodlab.StartNode(cfg, false, 120*time.Second)
		return err
	}
	n.pid = func() int { return p.PID }
	n.alive = func() bool { return p != nil && syscall.Kill(p.PID, 0) == nil && !zombie(p.PID) }
	n.restart = launch
	n.stop = func() {
		if p != nil {
			p.Stop(30 * time.Second)
		}
	}
	if err := launch(); err != nil {
		return nil, fmt.Errorf("monerod: %w", err)
	}
	return n, nil
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z'
}

func waitRPC(url string, timeout time.Duration) error {
	c := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if resp, err := c.Post(url+"/get_height", "application/json", strings.NewReader("{}")); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("RPC at %s not up within %v", url, timeout)
}

// heightOf is n's get_info height.
func heightOf(n *node) (uint64, error) {
	var info struct {
		Height uint64 `json:"height"`
	}
	err := jsonRPC(&http.Client{Timeout: 30 * time.Second}, n.url(), "get_info", nil, &info)
	return info.Height, err
}

// sameHeight fails unless every node is at the same height, and at least
// at the heavy chain's (summary.txt's blocks=, when there): a monerod whose
// copied store opened empty would otherwise be measured as a node with
// nothing to serve.
func sameHeight(nodes []*node, height uint64) error {
	want := height
	if b, err := os.ReadFile(filepath.Join(*chainDir, "summary.txt")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "blocks="); ok {
				if blocks, err := strconv.ParseUint(v, 10, 64); err == nil {
					want = max(want, blocks)
				}
			}
		}
	}
	for _, n := range nodes {
		if err := atHeight(n, want); err != nil {
			return err
		}
	}
	logf("every node at height %d", want)
	return nil
}

// atHeight fails loudly unless n's get_info height is height. A node
// that does not answer is asked again for a minute (monerod takes tens of
// seconds to come back from some floods).
func atHeight(n *node, height uint64) error {
	h, err := heightOf(n)
	for deadline := time.Now().Add(time.Minute); err != nil && time.Now().Before(deadline); {
		time.Sleep(time.Second)
		h, err = heightOf(n)
	}
	if err != nil {
		return fmt.Errorf("%s: get_info: %w", n.name, err)
	}
	if h != height {
		return fmt.Errorf("%s is at height %d, not the chain's %d: its store is not the heavy chain's", n.name, h, height)
	}
	return nil
}

// ready fails loudly unless n is at the chain's height, and makes it
// count itself synchronized: both nodes ignore relayed transactions and
// answer /sendrawtransaction BUSY until a peer at their own top has
// handshaken (monerod's on_connection_synchronized; the nodes have no
// other peer), so the transaction attacks would measure a refusal that
// costs nothing. A peer of its own address (127.0.0.201) handshakes at
// the top, then leaves.
func ready(ctx context.Context, n *node, f *facts) error {
	if err := atHeight(n, f.height); err != nil {
		return err
	}
	deadline := time.Now().Add(20 * time.Second)
	for claimed := false; ; {
		var info struct {
			Synchronized bool `json:"synchronized"`
		}
		if err := jsonRPC(&http.Client{Timeout: 30 * time.Second}, n.url(), "get_info", nil, &info); err != nil {
			return fmt.Errorf("%s: get_info: %w", n.name, err)
		}
		if info.Synchronized {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not count itself synchronized after a peer at its top handshook", n.name)
		}
		if !claimed {
			hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			c, _, err := p2pHandshakeAt(hctx, n, f, "127.0.0.201", rand.Uint64(), true)
			if err == nil {
				c.Close()
				claimed = true
			}
			cancel()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// prepare reads from n's RPC and builds what the floods send, before any
// flood: made at a flood's start inside all-at-once, the other floods made
// the reads fail (EOF: p2p-blocks and p2p-blocks-noread never ran) and
// starved the building of p2p-garbage-txs's 48 MB message for the whole
// minute (it never connected).
func prepare(n *node, f *facts) error {
	if _, err := chainBlockIDs(n, f); err != nil {
		return fmt.Errorf("%s: block ids: %w", n.name, err)
	}
	if _, err := realTxs(n, f); err != nil {
		return fmt.Errorf("%s: chain transactions: %w", n.name, err)
	}
	garbageTxs()
	keyImagePoints()
	bombs()
	return nil
}

// rssOf is a process's resident set in bytes (0 if gone).
func rssOf(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// ---- chain facts and requests --------------------------------------------------------------------------

type facts struct {
	height  uint64
	genesis []byte
	top     [32]byte // the top block's id
	cumDiff uint64   // the chain's cumulative difficulty (low 64 bits)
	outputs uint64
	txs     []string
}

func jsonRPC(c *http.Client, url, method string, params any, result any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": method, "params": params})
	resp, err := c.Post(url+"/json_rpc", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if env.Error != nil {
		return fmt.Errorf("%s: %s", method, env.Error.Message)
	}
	return json.Unmarshal(env.Result, result)
}

func chainFacts(url string) (*facts, error) {
	c := &http.Client{Timeout: 60 * time.Second}
	f := &facts{}
	var info struct {
		Height  uint64 `json:"height"`
		Top     string `json:"top_block_hash"`
		CumDiff uint64 `json:"cumulative_difficulty"`
	}
	if err := jsonRPC(c, url, "get_info", nil, &info); err != nil {
		return nil, err
	}
	f.height, f.cumDiff = info.Height, info.CumDiff
	if top, err := hex.DecodeString(info.Top); err == nil && len(top) == 32 {
		f.top = [32]byte(top)
	}
	var hdr struct {
		Header struct {
			Hash string `json:"hash"`
		} `json:"block_header"`
	}
	if err := jsonRPC(c, url, "getblockheaderbyheight", map[string]any{"height": 0}, &hdr); err != nil {
		return nil, err
	}
	f.genesis, _ = hex.DecodeString(hdr.Header.Hash)
	var dist struct {
		Distributions []struct {
			Distribution []uint64 `json:"distribution"`
		} `json:"distributions"`
	}
	if err := jsonRPC(c, url, "get_output_distribution", map[string]any{"amounts": []uint64{0}, "cumulative": true, "binary": false}, &dist); err != nil {
		return nil, err
	}
	if len(dist.Distributions) == 1 && len(dist.Distributions[0].Distribution) > 0 {
		d := dist.Distributions[0].Distribution
		f.outputs = d[len(d)-1]
	}
	for h := f.height - 1; h > 0 && len(f.txs) < 100; h-- {
		var b struct {
			TxHashes []string `json:"tx_hashes"`
		}
		if err := jsonRPC(c, url, "getblock", map[string]any{"height": h}, &b); err != nil {
			return nil, err
		}
		f.txs = append(f.txs, b.TxHashes...)
	}
	f.txs = f.txs[:min(len(f.txs), 100)]
	if f.outputs == 0 || len(f.genesis) != 32 {
		return nil, errors.New("chain facts: no RingCT outputs or no genesis hash")
	}
	return f, nil
}

// request is one HTTP request of a load.
type request struct {
	path string
	body []byte
	bin  bool // epee binary answer
}

func encode(s portable.Section) []byte {
	b, err := portable.Encode(s)
	if err != nil {
		panic(err)
	}
	return b
}

func rpcBody(method string, params any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": method, "params": params})
	return b
}

// legitRequests are a light client's: get_info, a header, a small
// /getblocks.bin (the last few blocks).
func legitRequests(f *facts, rng *rand.Rand) []request {
	var s portable.Section
	s.Set("block_ids", portable.NewBlob(f.genesis))
	s.Set("start_height", portable.NewUint64(f.height-3))
	s.Set("prune", portable.NewBool(true))
	return []request{
		{path: "/json_rpc", body: rpcBody("get_info", nil)},
		{path: "/json_rpc", body: rpcBody("getblockheaderbyheight", map[string]any{"height": rng.Uint64N(f.height)})},
		{path: "/getblocks.bin", body: encode(s), bin: true},
	}
}

// expensiveRequests are the costliest requests a restricted RPC serves.
func expensiveRequests(f *facts, rng *rand.Rand) []request {
	var gb portable.Section
	gb.Set("block_ids", portable.NewBlob(f.genesis))
	gb.Set("start_height", portable.NewUint64(0))
	gb.Set("prune", portable.NewBool(false))
	var byHeight portable.Section
	var heights []portable.Value
	for h := uint64(0); h < min(f.height, 1000); h++ {
		heights = append(heights, portable.NewUint64(h))
	}
	byHeight.Set("heights", portable.Value{Type: portable.ArrayFlag | portable.TypeUint64, Array: heights})
	byHeight.Set("prune", portable.NewBool(false))
	outs := make([]map[string]uint64, 4000)
	for i := range outs {
		outs[i] = map[string]uint64{"amount": 0, "index": rng.Uint64N(f.outputs)}
	}
	getOuts, _ := json.Marshal(map[string]any{"outputs": outs, "get_txid": true})
	getTxs, _ := json.Marshal(map[string]any{"txs_hashes": f.txs, "decode_as_json": true})
	return []request{
		{path: "/getblocks.bin", body: encode(gb), bin: true},
		{path: "/json_rpc", body: rpcBody("get_output_distribution", map[string]any{"amounts": []uint64{0}, "from_height": 0, "cumulative": true, "binary": false})},
		{path: "/get_outs", body: getOuts},
		{path: "/getblocks_by_height.bin", body: encode(byHeight), bin: true},
		{path: "/json_rpc", body: rpcBody("getblockheadersrange", map[string]any{"start_height": 0, "end_height": min(f.height, 1000) - 1})},
		{path: "/get_transactions", body: getTxs},
		{path: "/json_rpc", body: rpcBody("get_output_histogram", map[string]any{"amounts": []uint64{}, "min_count": 0, "max_count": 0})},
	}
}

// batchRequests is one JSON-RPC batch of 256 of the costliest calls a
// restricted RPC answers on /json_rpc (a header range of up to 1,000, the
// output distribution from 0, the histogram of every amount), about 27 kB
// of body (issue 33: gonerod made ~80 MB of answers of it; monerod refuses
// any batch with -32700).
func batchRequests(f *facts, _ *rand.Rand) []request {
	calls := []string{
		fmt.Sprintf(`"method":"getblockheadersrange","params":{"start_height":0,"end_height":%d}`, min(f.height, 1000)-1),
		`"method":"get_output_distribution","params":{"amounts":[0],"from_height":0,"cumulative":true,"binary":false}`,
		`"method":"get_output_histogram","params":{"amounts":[],"min_count":0,"max_count":0}`,
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range 256 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,%s}`, i, calls[i%len(calls)])
	}
	b.WriteByte(']')
	return []request{{path: "/json_rpc", body: b.Bytes()}}
}

// batchFlood: conns keep-alive connections from as many addresses post
// batchRequests' batch in a loop, each as soon as the last is answered,
// reading every answer to the end; it reports the bytes of answers.
func batchFlood(conns int) func(ctx context.Context, n *node, f *facts) string {
	return func(ctx context.Context, n *node, f *facts) string {
		var cnt counter
		var answered atomic.Int64
		body := batchRequests(f, nil)[0]
		workers(ctx, conns, false, func(ctx context.Context, i int) {
			c := clientFrom(attackerAddr(ctx, i, conns), 1, 30*time.Second)
			defer c.CloseIdleConnections()
			for ctx.Err() == nil {
				req, err := http.NewRequestWithContext(ctx, "POST", n.url()+body.path, bytes.NewReader(body.body))
				if err != nil {
					return
				}
				resp, err := c.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						cnt.failed.Add(1)
					}
					continue
				}
				k, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<30))
				resp.Body.Close()
				answered.Add(k)
				if err == nil && resp.StatusCode == 200 {
					cnt.ok.Add(1)
				} else if ctx.Err() == nil {
					cnt.failed.Add(1)
				}
			}
		})
		return fmt.Sprintf("batches (%d B of body): %s, %.1f MB of answers", len(body.body), cnt.String(), float64(answered.Load())/1e6)
	}
}

// malformed are requests no node should serve: cut or nested JSON, wrong
// types, binary garbage, a portable header followed by garbage.
func malformedRequests(rng *rand.Rand) []request {
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	portableHead := append([]byte{0x01, 0x11, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01}, garbage[:512]...)
	return []request{
		{path: "/json_rpc", body: []byte(`{"jsonrpc":"2.0","id":0,"method":"get_info","params":`)},
		{path: "/json_rpc", body: append(bytes.Repeat([]byte("["), 20000), bytes.Repeat([]byte("]"), 20000)...)},
		{path: "/json_rpc", body: rpcBody("getblockheaderbyheight", map[string]any{"height": "x"})},
		{path: "/json_rpc", body: rpcBody("getblockheadersrange", map[string]any{"start_height": 0, "end_height": uint64(1) << 62})},
		{path: "/getblocks.bin", body: garbage},
		{path: "/get_outs.bin", body: portableHead},
		{path: "/get_transactions", body: []byte(`{"txs_hashes":["zz","` + strings.Repeat("f", 64) + `"],"decode_as_json":7}`)},
		{path: "/json_rpc", body: garbage[:1024]},
	}
}

// do sends one request and says whether the node served it: HTTP 200 and,
// for JSON-RPC, a result; for a binary answer, status OK.
func do(ctx context.Context, c *http.Client, url string, r request) (time.Duration, bool) {
	took, why := try(ctx, c, url, r)
	return took, why == ""
}

// try sends one request and says why the node did not serve it ("" if it
// did): "refused" (the connection failed or was closed without an answer),
// "connect timeout" (no TCP connection within the timeout: the node's
// accept queue full, the client's SYNs dropped and retransmitted at 1, 3
// s...), "timeout" (the TCP handshake done, by the kernel: the connection
// waited in the accept queue or was accepted, and no answer came in time),
// "http N", "status S" (a
// BUSY or an error answer), "error" (a JSON-RPC error), "garbled".
func try(ctx context.Context, c *http.Client, url string, r request) (time.Duration, string) {
	start := time.Now()
	var connected atomic.Bool
	trace := &httptrace.ClientTrace{ConnectDone: func(_, _ string, err error) {
		if err == nil {
			connected.Store(true)
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), "POST", url+r.path, bytes.NewReader(r.body))
	if err != nil {
		return 0, "garbled"
	}
	resp, err := c.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			if !connected.Load() {
				return time.Since(start), "connect timeout"
			}
			return time.Since(start), "timeout"
		}
		return time.Since(start), "refused"
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	resp.Body.Close()
	took := time.Since(start)
	switch {
	case err != nil:
		return took, "refused"
	case resp.StatusCode != 200:
		return took, fmt.Sprintf("http %d", resp.StatusCode)
	}
	status := func(st string) string {
		if st == "OK" {
			return ""
		}
		return "status " + st
	}
	if r.bin {
		s, err := portable.Decode(body)
		if err != nil {
			return took, "garbled"
		}
		st, _ := s.GetString("status")
		return took, status(st)
	}
	if r.path == "/json_rpc" {
		var env struct {
			Result *struct {
				Status string `json:"status"`
			} `json:"result"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		switch {
		case json.Unmarshal(body, &env) != nil:
			return took, "garbled"
		case env.Error != nil:
			return took, fmt.Sprintf("error %d", env.Error.Code)
		case env.Result == nil:
			return took, "garbled"
		}
		return took, status(env.Result.Status)
	}
	var st struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(body, &st) != nil {
		return took, "garbled"
	}
	return took, status(st.Status)
}

// blast sends one attacker request and reads its answer to the end without
// decoding it (an attacker does not; decoding megabytes of answers would
// take the shared cores from the node and the legitimate client): served
// means HTTP 200.
func blast(ctx context.Context, c *http.Client, url string, r request) bool {
	req, err := http.NewRequestWithContext(ctx, "POST", url+r.path, bytes.NewReader(r.body))
	if err != nil {
		return false
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 256<<20))
	resp.Body.Close()
	return err == nil && resp.StatusCode == 200
}

// clientFrom is a keep-alive HTTP client whose connections come from src.
func clientFrom(src string, conns int, timeout time.Duration) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return attackerDial(ctx, d, network, addr)
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: dial, MaxIdleConnsPerHost: conns,
		MaxConnsPerHost: conns, DisableCompression: true, ResponseHeaderTimeout: timeout}}
}

// netKey carries in an attack's context the second octet of its addresses:
// each attack has a /16 of its own (127.1.0.0/16 for the first chosen, and
// so on; all-at-once gives each of its floods another), so that what the
// node remembers of one attack's addresses (bans for a P2P garbage flood,
// the fair slots' record of who asked) does not change the next, and the
// floods of all-at-once do not share addresses.
type netKey struct{}

func withNet(ctx context.Context, net int) context.Context {
	return context.WithValue(ctx, netKey{}, net)
}

// attackerAddr is the source address of an attacker's slot i when the
// attack uses addrs addresses (at most 64,000): 127.N.0.1 on, never the
// legitimate client's.
func attackerAddr(ctx context.Context, i, addrs int) string {
	net, ok := ctx.Value(netKey{}).(int)
	if !ok {
		net = 1
	}
	k := i % addrs
	return fmt.Sprintf("127.%d.%d.%d", net, k/250, 1+k%250)
}

// legitClient makes a new connection for every request, as a wallet or an
// explorer that comes and goes does: a slot the node does not give it is a
// failed request, not one queued behind an old keep-alive connection.
func legitClient(timeout time.Duration) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(legitAddr)}, Timeout: timeout}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true,
		DisableCompression: true, ResponseHeaderTimeout: timeout}}
}

// ---- attacks ---------------------------------------------------------------------------------------------

// attack runs against n until ctx ends and reports its own load.
type attack struct {
	name, what string
	run        func(ctx context.Context, n *node, f *facts) string
}

// counter counts an attack's operations.
type counter struct{ ok, failed atomic.Int64 }

func (c *counter) String() string {
	return fmt.Sprintf("%d answered (HTTP 200), %d refused/failed", c.ok.Load(), c.failed.Load())
}

// workers runs fn on n goroutines until ctx ends: again and again, or
// only once each when once is set.
func workers(ctx context.Context, n int, once bool, fn func(ctx context.Context, i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				fn(ctx, i)
				if once {
					<-ctx.Done()
				}
			}
		}()
	}
	wg.Wait()
}

// fdTokens bounds the attackers' open sockets (all attacks of this process
// together) to the descriptor limit less a reserve: past it a dial waits
// for a socket to close, so that the legitimate client never fails for want
// of a descriptor of its own (rpc-addr-churn-20k and all-at-once want more
// sockets than the usual limit of 20,000). Set by main.
var fdTokens chan struct{}

func initFDTokens() {
	var lim syscall.Rlimit
	n := 8000
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		n = max(1000, int(lim.Cur)-2000)
	}
	fdTokens = make(chan struct{}, n)
	logf("attackers hold %d sockets at most (descriptor limit %d less 2,000 for the client and the run)", n, lim.Cur)
}

// counted is an attacker's socket: its Close gives its token back to the
// pool it came from, once.
type counted struct {
	net.Conn
	pool chan struct{}
	once sync.Once
}

func (c *counted) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.pool })
	return err
}

// ownTokensKey carries in a flood's context the sockets reserved for it
// (all-at-once): a flood that needs few sockets (20 P2P peers) gets them
// even while the floods of thousands of connections hold every shared
// token. Without it p2p-garbage-txs never made a connection in
// all-at-once.
type ownTokensKey struct{}

// attackerDial dials with d once a socket token is free: one of the
// flood's own (ownTokensKey), else a shared one.
func attackerDial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	own, _ := ctx.Value(ownTokensKey{}).(chan struct{})
	var pool chan struct{}
	select {
	case own <- struct{}{}: // a nil own is never ready
		pool = own
	default:
		select {
		case own <- struct{}{}:
			pool = own
		case fdTokens <- struct{}{}:
			pool = fdTokens
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		<-pool
		return nil, err
	}
	return &counted{Conn: c, pool: pool}, nil
}

// dialFrom dials addr from src; the connection is closed when ctx ends.
func dialFrom(ctx context.Context, src string, port int) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 3 * time.Second}
	return dialUntilDone(ctx, &d, "tcp", "127.0.0.1:"+strconv.Itoa(port))
}

// dialUntilDone dials addr with d; the connection is closed when ctx ends.
func dialUntilDone(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	c, err := attackerDial(ctx, d, network, addr)
	if err != nil {
		// A refused or failed dial is retried at once, but not in a
		// tight loop against a node that refuses it in the kernel.
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
		return nil, err
	}
	go func() { <-ctx.Done(); c.Close() }()
	return c, nil
}

// holdUntilClosed reads and discards until the node closes c or ctx ends.
func holdUntilClosed(ctx context.Context, c net.Conn) {
	buf := make([]byte, 4096)
	for ctx.Err() == nil {
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c.Read(buf); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
	}
}

// connFlood opens per idle connections from each of addrs addresses to
// port and holds each until the node closes it; then, when reconnect is
// set, the slot reconnects at once, else it stays empty.
func connFlood(port func(*node) int, addrs, per int, reconnect bool) func(ctx context.Context, n *node, f *facts) string {
	return func(ctx context.Context, n *node, _ *facts) string {
		var cnt counter
		workers(ctx, addrs*per, !reconnect, func(ctx context.Context, i int) {
			c, err := dialFrom(ctx, attackerAddr(ctx, i, addrs), port(n))
			if err != nil {
				cnt.failed.Add(1)
				return
			}
			defer c.Close()
			cnt.ok.Add(1)
			holdUntilClosed(ctx, c)
		})
		return fmt.Sprintf("%d connections made, %d dials failed", cnt.ok.Load(), cnt.failed.Load())
	}
}

// addrChurn: one connection from each of addrs addresses sends one cheap
// request at once, reads its answer and stays idle until the node closes
// it; then the address reconnects at once (issue 33: with probation
// cycling faster than a client's request could claim a slot, the client
// got 0 % from both nodes).
func addrChurn(addrs int) func(ctx context.Context, n *node, f *facts) string {
	return func(ctx context.Context, n *node, _ *facts) string {
		var cnt counter
		var asked atomic.Int64
		workers(ctx, addrs, false, func(ctx context.Context, i int) {
			c, err := dialFrom(ctx, attackerAddr(ctx, i, addrs), n.rpc)
			if err != nil {
				cnt.failed.Add(1)
				return
			}
			defer c.Close()
			cnt.ok.Add(1)
			_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.WriteString(c, "GET /get_height HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
				return
			}
			asked.Add(1)
			holdUntilClosed(ctx, c) // reads the answer, then idles
		})
		return fmt.Sprintf("%d connections made, %d requests sent, %d dials failed", cnt.ok.Load(), asked.Load(), cnt.failed.Load())
	}
}

func rpcPort(n *node) int { return n.rpc }
func p2pPort(n *node) int { return n.p2p }

// slowloris opens per connections from each of addrs addresses, each
// sending a request head one header line a second, never ending it; a slot
// whose connection is closed (or refused) reconnects at once when reconnect
// is set, else it stays empty.
func slowloris(addrs, per int, reconnect bool) func(ctx context.Context, n *node, f *facts) string {
	return func(ctx context.Context, n *node, f *facts) string {
		return slowlorisRun(ctx, n, addrs, per, reconnect)
	}
}

func slowlorisRun(ctx context.Context, n *node, addrs, per int, reconnect bool) string {
	var made, lines atomic.Int64
	workers(ctx, addrs*per, !reconnect, func(ctx context.Context, i int) {
		c, err := dialFrom(ctx, attackerAddr(ctx, i, addrs), n.rpc)
		if err != nil {
			return
		}
		defer c.Close()
		made.Add(1)
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, "POST /json_rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"); err != nil {
			return
		}
		for k := 0; ctx.Err() == nil; k++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := fmt.Fprintf(c, "X-Slow-%d: %d\r\n", k, k); err != nil {
				return
			}
			lines.Add(1)
		}
	})
	return fmt.Sprintf("%d connections made, %d header lines trickled", made.Load(), lines.Load())
}

// requestFlood loops requests, each as soon as the last is answered, on
// per keep-alive connections from each of addrs addresses (a connection the
// node closes or refuses is reopened at once).
func requestFlood(addrs, per int, reqs func(f *facts, rng *rand.Rand) []request) func(ctx context.Context, n *node, f *facts) string {
	return func(ctx context.Context, n *node, f *facts) string {
		var cnt counter
		clients := make([]*http.Client, addrs)
		for i := range clients {
			clients[i] = clientFrom(attackerAddr(ctx, i, addrs), per, 30*time.Second)
		}
		defer func() {
			for _, c := range clients {
				c.CloseIdleConnections()
			}
		}()
		workers(ctx, addrs*per, false, func(ctx context.Context, i int) {
			rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			rs := reqs(f, rng)
			for k := 0; ctx.Err() == nil; k++ {
				if blast(ctx, clients[i%addrs], n.url(), rs[(i+k)%len(rs)]) {
					cnt.ok.Add(1)
				} else if ctx.Err() == nil {
					cnt.failed.Add(1)
				}
			}
		})
		return "attacker requests: " + cnt.String()
	}
}

// malformedFlood mixes malformed bodies on keep-alive clients with raw
// garbage on fresh connections.
func malformedFlood(ctx context.Context, n *node, f *facts) string {
	var raw atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		workers(ctx, 50, false, func(ctx context.Context, i int) {
			c, err := dialFrom(ctx, attackerAddr(ctx, i, 50), n.rpc)
			if err != nil {
				return
			}
			defer c.Close()
			raw.Add(1)
			_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			switch i % 3 {
			case 0: // a request line of garbage
				_, _ = c.Write(append(bytes.Repeat([]byte{0xfe, 'G', 0}, 5000), "\r\n\r\n"...))
			case 1: // a body announced at 1 GB, cut short
				_, _ = io.WriteString(c, "POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n{\"jsonrpc\":")
				return
			default: // a 64 KiB header
				_, _ = io.WriteString(c, "GET /get_info HTTP/1.1\r\nX-Big: "+strings.Repeat("a", 64<<10)+"\r\n\r\n")
			}
			holdUntilClosed(ctx, c)
		})
	}()
	load := requestFlood(50, 1, func(_ *facts, rng *rand.Rand) []request { return malformedRequests(rng) })(ctx, n, f)
	wg.Wait()
	return fmt.Sprintf("%d raw garbage connections; malformed %s", raw.Load(), strings.TrimPrefix(load, "attacker "))
}

// p2pGarbage sends random bytes, or a levin header announcing 100 MB and
// then garbage, on reconnecting P2P connections.
func p2pGarbage(ctx context.Context, n *node, _ *facts) string {
	var made atomic.Int64
	workers(ctx, 100, false, func(ctx context.Context, i int) {
		c, err := dialFrom(ctx, attackerAddr(ctx, i, 50), n.p2p)
		if err != nil {
			return
		}
		defer c.Close()
		made.Add(1)
		buf := make([]byte, 16<<10)
		for k := range buf {
			buf[k] = byte(rand.Uint32())
		}
		if i%2 == 0 {
			// levin signature, a 100 MB body, a handshake command
			head := []byte{0x01, 0x21, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0xe1, 0xf5, 0x05, 0, 0, 0, 0, 1,
				0xe9, 0x03, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}
			buf = append(head, buf...)
		}
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		for ctx.Err() == nil {
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	})
	return fmt.Sprintf("%d garbage connections", made.Load())
}

// zmqFlood opens per ZMQ RPC connections from each of addrs addresses,
// each a REQ peer asking get_blocks_fast from the genesis block (the
// largest answer, the whole chain): even slots read each answer and ask
// again, odd ones send requests one after another and never read (a
// client that stalls); a slot whose connection is closed or refused
// reconnects at once. Meanwhile a ZMQ client of its own address asks
// get_height on a new connection every 200 ms (2 s to answer): the note
// gives its success with the attackers' counts.
func zmqFlood(addrs, per int) func(ctx context.Context, n *node, f *facts) string {
	return func(ctx context.Context, n *node, f *facts) string {
		req := []byte(`{"jsonrpc":"2.0","id":1,"method":"get_blocks_fast","params":{"block_ids":["` + hex.EncodeToString(f.genesis) +
			`"],"start_height":0,"prune":false}}`)
		var conns, answers, answerBytes, sent atomic.Int64
		var probeOK, probeAll atomic.Int64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				next := time.Now().Add(200 * time.Millisecond)
				probeAll.Add(1)
				if zmqProbe(ctx, n.zmq) {
					probeOK.Add(1)
				}
				select {
				case <-ctx.Done():
				case <-time.After(time.Until(next)):
				}
			}
		}()
		workers(ctx, addrs*per, false, func(ctx context.Context, i int) {
			c, err := dialFrom(ctx, attackerAddr(ctx, i, addrs), n.zmq)
			if err != nil {
				return
			}
			defer c.Close()
			if zmqHandshake(c) != nil {
				return
			}
			conns.Add(1)
			for ctx.Err() == nil {
				_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
				if zmqSend(c, req) != nil {
					return
				}
				sent.Add(1)
				if i%2 == 1 {
					continue // never reads
				}
				_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
				size, err := zmqRecv(c)
				if err != nil {
					return
				}
				answers.Add(1)
				answerBytes.Add(int64(size))
			}
		})
		wg.Wait()
		return fmt.Sprintf("ZMQ client %d of %d get_height answered; attackers: %d connections, %d requests sent, %d answers read (%d MB)",
			probeOK.Load(), probeAll.Load(), conns.Load(), sent.Load(), answers.Load(), answerBytes.Load()>>20)
	}
}

// zmqHandshake is a REQ socket's ZMTP 3 greeting and READY.
func zmqHandshake(c net.Conn) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("zmtp: %v", r)
		}
	}()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	defer func() { _ = c.SetDeadline(time.Time{}) }()
	_, err = zmq4.Open(c, null.Security(), zmq4.Req, zmq4.SocketIdentity(nil), false, nil)
	return err
}

// zmqSend writes a REQ message: the empty delimiter, then body.
func zmqSend(c net.Conn, body []byte) error {
	head := []byte{1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint64(head[3:], uint64(len(body)))
	_, err := c.Write(append(head, body...))
	return err
}

// zmqRecv reads one message, discarding it, and returns its size.
func zmqRecv(c net.Conn) (int, error) {
	total := 0
	var head [9]byte
	for {
		if _, err := io.ReadFull(c, head[:1]); err != nil {
			return total, err
		}
		flags := head[0]
		var size uint64
		if flags&2 != 0 {
			if _, err := io.ReadFull(c, head[1:9]); err != nil {
				return total, err
			}
			size = binary.BigEndian.Uint64(head[1:9])
		} else {
			if _, err := io.ReadFull(c, head[1:2]); err != nil {
				return total, err
			}
			size = uint64(head[1])
		}
		if size > 64<<20 {
			return total, errors.New("zmq: frame too big")
		}
		if _, err := io.CopyN(io.Discard, c, int64(size)); err != nil {
			return total, err
		}
		total += int(size)
		if flags&4 == 0 && flags&1 == 0 {
			return total, nil
		}
	}
}

// zmqProbe asks get_height on a new connection from the client's address,
// within 2 s.
func zmqProbe(ctx context.Context, port int) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := dialFrom(ctx, legitAddr, port)
	if err != nil {
		return false
	}
	defer c.Close()
	if zmqHandshake(c) != nil {
		return false
	}
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if zmqSend(c, []byte(`{"jsonrpc":"2.0","id":1,"method":"get_height","params":{}}`)) != nil {
		return false
	}
	size, err := zmqRecv(c)
	return err == nil && size > 0
}

// syncDuringFlood starts a fresh gonerod syncing from n over P2P while a
// P2P connection flood and an expensive-request flood run.
func syncDuringFlood(ctx context.Context, n *node, f *facts) string { return syncFrom(ctx, n, f, true) }

// syncAlone is the same sync without a flood, for comparison.
func syncAlone(ctx context.Context, n *node, f *facts) string { return syncFrom(ctx, n, f, false) }

func syncFrom(ctx context.Context, n *node, f *facts, flood bool) string {
	dir, err := os.MkdirTemp("", "gonero-abuse-syncer-")
	if err != nil {
		return "syncer: " + err.Error()
	}
	defer os.RemoveAll(dir)
	rpc := freePort()
	cmd := exec.Command(*gonerodBin, "--regtest", "--fixed-difficulty", "1", "--data-dir", dir, "--no-zmq", "--rpc-bind-port", strconv.Itoa(rpc),
		"--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", strconv.Itoa(freePort()), "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(n.p2p),
		"--log-level", "warn")
	logFile, _ := os.Create(filepath.Join(dir, "syncer.log"))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	floodCtx, stopFlood := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var p2pLoad, rpcLoad string
	if flood {
		wg.Add(2)
		go func() { defer wg.Done(); p2pLoad = connFlood(p2pPort, 50, 2, true)(floodCtx, n, f) }()
		go func() { defer wg.Done(); rpcLoad = requestFlood(50, 1, expensiveRequests)(floodCtx, n, f) }()
	}
	defer func() { stopFlood(); wg.Wait() }()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return "syncer: " + err.Error()
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		logFile.Close()
	}()
	want := f.height
	if *syncBlocks > 0 {
		want = min(want, uint64(*syncBlocks))
	}
	c := &http.Client{Timeout: 2 * time.Second}
	var got uint64
	for ctx.Err() == nil {
		var info struct {
			Height uint64 `json:"height"`
		}
		if jsonRPC(c, "http://127.0.0.1:"+strconv.Itoa(rpc), "get_info", nil, &info) == nil {
			got = info.Height
			if got >= want {
				took := time.Since(start)
				stopFlood()
				wg.Wait()
				if !flood {
					return fmt.Sprintf("synced %d blocks in %.1f s", want, took.Seconds())
				}
				return fmt.Sprintf("synced %d blocks in %.1f s (%s; %s)", want, took.Seconds(), p2pLoad, strings.TrimPrefix(rpcLoad, "attacker "))
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	stopFlood()
	wg.Wait()
	return fmt.Sprintf("NOT synced: %d of %d blocks in %.0f s (%s; %s)", got, want, time.Since(start).Seconds(), p2pLoad, rpcLoad)
}

func attacks() []attack {
	return []attack{
		{name: "none (baseline)", what: "the legitimate client alone", run: func(ctx context.Context, _ *node, _ *facts) string {
			<-ctx.Done()
			return ""
		}},
		{name: "rpc-idle-held", what: "2,000 idle RPC connections from 200 addresses (10 each), opened once and held; a closed one is not reopened", run: connFlood(rpcPort, 200, 10, false)},
		{name: "rpc-slowloris-held", what: "1,000 RPC connections from 100 addresses (10 each) sending a request head a line a second; a closed one is not reopened", run: slowloris(100, 10, false)},
		{name: "rpc-conn-flood", what: "the 2,000 idle connections of rpc-idle-held, each slot reconnecting as soon as its connection is closed or refused", run: connFlood(rpcPort, 200, 10, true)},
		{name: "rpc-conn-flood-8", what: "8 addresses x 25 idle connections (monerod's per-private-IP limit), each slot reconnecting as soon as closed: twice the 100-connection cap", run: connFlood(rpcPort, 8, 25, true)},
		{name: "rpc-addr-churn", what: "2,000 addresses, one connection each: one cheap request (/get_height) at once, its answer read, then idle until closed, reconnecting at once", run: addrChurn(2000)},
		{name: "rpc-slowloris", what: "the 1,000 slowloris connections of rpc-slowloris-held, each slot reconnecting as soon as closed", run: slowloris(100, 10, true)},
		{name: "rpc-expensive", what: "200 keep-alive connections from 50 addresses (4 each) looping the costliest restricted requests, each as soon as the last is answered", run: requestFlood(50, 4, expensiveRequests)},
		{name: "rpc-batch", what: "20 keep-alive connections from 20 addresses posting a 256-call JSON-RPC batch of the costliest /json_rpc calls (header range, output distribution, histogram; ~27 kB), each as soon as the last is answered", run: batchFlood(20)},
		{name: "rpc-malformed", what: "malformed bodies on 50 keep-alive connections, garbage heads on 50 reconnecting ones, 50 addresses", run: malformedFlood},
		{name: "zmq-rpc-flood", what: "300 ZMQ RPC (REQ) connections from 30 addresses (10 each) asking get_blocks_fast of the whole chain: half loop, reading each answer; half pipeline requests and never read; reconnecting when closed", run: zmqFlood(30, 10)},
		{name: "p2p-conn-flood", what: "200 P2P connections from 50 addresses, held until closed, reconnected at once", run: connFlood(p2pPort, 50, 4, true)},
		{name: "p2p-garbage", what: "100 P2P connections from 50 addresses sending garbage or a 100 MB levin announce, reconnected at once", run: p2pGarbage},
		{name: "p2p-blocks", what: "20 P2P peers from 20 addresses asking for 100 blocks and for the chain, alternately, as fast as the node takes the requests, reading every answer", run: p2pBlockFlood(true)},
		{name: "p2p-blocks-noread", what: "20 P2P peers asking for blocks and chains as fast as the node takes the requests, never reading", run: p2pBlockFlood(false)},
		{name: "p2p-garbage-txs", what: "20 P2P peers sending 48 MB messages of 1,000 garbage transactions, again and again, reconnecting when dropped", run: p2pGarbageTxs},
		{name: "p2p-bad-sig-txs", what: "20 P2P peers relaying messages of 4 transactions, each a real chain transaction (real ring members, valid range proofs) with fresh unspent-looking key images, so bad signatures: as fast as the node takes them, reconnecting from a new address when dropped", run: p2pBadSigTxs},
		{name: "p2p-dup-txs", what: "20 P2P peers relaying the same transactions again and again: half the chain's last 20 (mined) transactions, half one fixed bad-signature transaction; reconnecting from a new address when dropped", run: p2pDupTxs},
		{name: "rpc-invalid-txs", what: "50 keep-alive connections from 50 addresses posting bad-signature transactions (those of p2p-bad-sig-txs) to /sendrawtransaction, each as soon as the last is answered", run: rpcInvalidTxs},
		{name: "rpc-bombs", what: "50 keep-alive connections from 50 addresses posting bodies just under 1 MiB: JSON nested as deep as fits (objects, arrays), arrays of ~500,000 zeros, megabyte strings (id, method, tx_as_hex), 15,000 hashes to /get_transactions, 40,000 outputs to /get_outs and /get_outs.bin, 32,000 block ids to /getblocks.bin; and one just over the limit", run: rpcBombs},
		{name: "rpc-addr-churn-20k", what: "rpc-addr-churn from 20,000 addresses", run: addrChurn(20000)},
		{name: "rpc-addr-churn-v6", what: "2,000 IPv6 connections at a time to [::1], each from a new random address of fd00:1::/48 (a whole /48): one cheap request (/get_height), then idle until closed, reconnecting from another address", run: addrChurnV6(2000)},
		{name: "all-at-once", what: "every flood above at the same time (each from its own /16), for -all-d (the issue: RSS < 1 GB, the client >= 95 %)", run: allAtOnce},
		{name: "sync-alone", what: "a fresh gonerod syncs the chain over P2P from the node, no flood (the reference time)", run: syncAlone},
		{name: "sync-during-flood", what: "a fresh gonerod syncs the chain over P2P during P2P-connection and expensive-request floods", run: syncDuringFlood},
	}
}

// ---- measurement -----------------------------------------------------------------------------------------

type row struct {
	attack, node string
	requests     int
	success      float64 // share of the requests answered
	servedTime   float64 // share of the time (see legit)
	p50, p99     time.Duration
	rss          uint64
	recovery     time.Duration // < 0: not recovered within maxRecovery
	crashed      bool
	note         string
}

// legit loops the legitimate client's requests until ctx ends, each on a
// new connection, starting one every legitInterval at most (so that a
// refusal that comes back at once does not pile up failures). A connection
// refused, closed or timed out is a failed request. served and total are
// times: each request stands for the time from its start to the next one's,
// and served sums those of the requests answered, so that a refusal the
// node holds 250 ms weighs its 250 ms and not one request.
func legit(ctx context.Context, n *node, f *facts) (lat []time.Duration, ok int, served, total time.Duration, why map[string]int) {
	why = make(map[string]int)
	c := legitClient(legitTimeout)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; ctx.Err() == nil; k++ {
		start := time.Now()
		next := start.Add(legitInterval)
		rs := legitRequests(f, rng)
		// Not cut by ctx: a request sent during the attack counts as
		// answered or failed whenever it ends (legitTimeout at most).
		took, reason := try(context.Background(), c, n.url(), rs[k%len(rs)])
		good := reason == ""
		if !good {
			why[reason]++
		}
		lat = append(lat, took)
		if good {
			ok++
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(next)):
		}
		span := time.Since(start)
		total += span
		if good {
			served += span
		}
	}
	return lat, ok, served, total, why
}

func measure(ctx context.Context, a attack, n *node, f *facts) row {
	r := row{attack: a.name, node: n.name}
	pid := n.pid()
	var peak atomic.Uint64
	sampleCtx, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	var mem goMem
	go func() {
		defer close(sampled)
		for k := 0; sampleCtx.Err() == nil; k++ {
			if v := rssOf(pid); v > peak.Load() {
				peak.Store(v)
			}
			if n.metrics != 0 && k%5 == 0 {
				mem.sample(n.metrics)
			}
			select {
			case <-sampleCtx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	d := *attackFor
	switch a.name {
	case "none (baseline)":
		d = 5 * time.Second
	case "all-at-once":
		d = *allFor
	}
	attackCtx, stopAttack := context.WithCancel(ctx)
	var note string
	attackDone := make(chan struct{})
	started := make(chan struct{})
	go func() { defer close(attackDone); note = runAttack(attackCtx, a, n, f, started) }()
	<-started
	if a.name != "none (baseline)" && !strings.HasPrefix(a.name, "sync-") {
		// The flood is there before the client comes.
		select {
		case <-time.After(rampUp):
		case <-ctx.Done():
		}
	}
	legitCtx, stopLegit := context.WithCancel(ctx)
	type result struct {
		lat           []time.Duration
		ok            int
		served, total time.Duration
		why           map[string]int
	}
	legitDone := make(chan result, 1)
	go func() {
		var res result
		res.lat, res.ok, res.served, res.total, res.why = legit(legitCtx, n, f)
		legitDone <- res
	}()
	if strings.HasPrefix(a.name, "sync-") {
		// The attack ends when the syncer is done (bounded by 3 minutes).
		select {
		case <-attackDone:
		case <-time.After(3 * time.Minute):
		}
	} else {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
	stopLegit()
	res := <-legitDone
	stopAttack()
	stopped := time.Now()
	<-attackDone
	// Recovery counts from the flood's end: its sockets closed (in this
	// process) or its process done (-attacker-process), so that the time
	// a flood takes to stop is not taken for the node's.
	ended := time.Now()
	r.note = note
	if wind := ended.Sub(stopped); wind >= 100*time.Millisecond {
		r.note = fmt.Sprintf("the flood took %.1f s to stop (recovery counted from then); %s", wind.Seconds(), r.note)
	}
	if len(res.why) > 0 {
		var parts []string
		for k, v := range res.why {
			parts = append(parts, fmt.Sprintf("%d %s", v, k))
		}
		slices.Sort(parts)
		r.note = "client failures: " + strings.Join(parts, ", ") + "; " + r.note
	}
	r.recovery = recoveryTime(ctx, n, f, ended)
	stopSampling()
	<-sampled
	r.rss = peak.Load()
	if m := mem.String(); m != "" && r.note != "" {
		r.note += "; " + m
	} else if m != "" {
		r.note = m
	}
	r.crashed = !n.alive()
	r.requests = len(res.lat)
	if r.requests > 0 {
		r.success = 100 * float64(res.ok) / float64(r.requests)
		r.servedTime = 100 * float64(res.served) / float64(max(res.total, 1))
		slices.Sort(res.lat)
		r.p50 = res.lat[len(res.lat)/2]
		r.p99 = res.lat[min(len(res.lat)-1, len(res.lat)*99/100)]
	}
	if r.crashed {
		r.note = "CRASHED; " + r.note
	}
	// Let the node settle (closed connections, freed memory) before the next.
	time.Sleep(time.Second)
	return r
}

// recoveryTime measures how long after ended the legitimate client needs to be
// served normally again: recoveredRun requests in a row, each within
// targetP99, each on a new connection as the legitimate client's.
func recoveryTime(ctx context.Context, n *node, f *facts, ended time.Time) time.Duration {
	c := legitClient(legitTimeout)
	rng := rand.New(rand.NewPCG(3, 4))
	run := 0
	var first time.Time
	for k := 0; ctx.Err() == nil && time.Since(ended) < maxRecovery; k++ {
		sent := time.Now()
		took, ok := do(ctx, c, n.url(), legitRequests(f, rng)[k%3])
		if ok && took <= targetP99 {
			if run == 0 {
				first = sent
			}
			if run++; run == recoveredRun {
				return max(0, first.Sub(ended))
			}
			continue
		}
		run = 0
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	return -1
}

// worseThanMonerod lists the measures on which gonerod's row r is worse
// than monerod's row of the same attack where monerod's beats the target
// (issue 33: there gonerod must do at least as well as monerod); "" when
// none, or when monerod did not run it. p99 compares with 10 % of slack
// and 5 ms: two nodes measured one after the other on a shared machine.
func worseThanMonerod(r row, rows []row) string {
	i := slices.IndexFunc(rows, func(m row) bool { return m.node == "monerod" && m.attack == r.attack })
	if i < 0 {
		return ""
	}
	m := rows[i]
	var w []string
	if m.success >= targetSuccess && r.success < m.success {
		w = append(w, fmt.Sprintf("success %.1f %% vs %.1f %%", r.success, m.success))
	}
	// monerod's p99 counts only where it serves: the p99 of its refusals
	// (all-at-once: every connection refused at its cap, at once) is not
	// a latency gonerod's answers could be held to.
	if m.success >= targetSuccess && m.p99 <= targetP99 && r.p99 > m.p99+m.p99/10+5*time.Millisecond {
		w = append(w, fmt.Sprintf("p99 %.0f vs %.0f ms", ms(r.p99), ms(m.p99)))
	}
	if m.rss < targetRSS && r.rss > m.rss {
		w = append(w, fmt.Sprintf("RSS %d vs %d MB", r.rss>>20, m.rss>>20))
	}
	if m.recovery >= 0 && m.recovery <= targetRecovery && (r.recovery < 0 || r.recovery > m.recovery+100*time.Millisecond) {
		w = append(w, fmt.Sprintf("recovery %s vs %s", fmtRecovery(r.recovery), fmtRecovery(m.recovery)))
	}
	return strings.Join(w, ", ")
}

// ---- report ----------------------------------------------------------------------------------------------

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fmtRecovery(d time.Duration) string {
	if d < 0 {
		return fmt.Sprintf("> %.0f s", maxRecovery.Seconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func mark(ok bool) string {
	if ok {
		return "met"
	}
	return "**unmet**"
}

func render(rows []row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Abuse: %s, %v per attack (legitimate client: a new connection per request, one every %v at most; %s)\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), *attackFor, legitInterval, attackerMode())
	b.WriteString("| attack | node | legit requests | success | served time | p50 ms | p99 ms | peak RSS MB | recovery | targets (gonerod) | attack load |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	met, total, worse := 0, 0, 0
	for _, r := range rows {
		targets := "(reference)"
		if r.node == "gonerod" {
			checks := []struct {
				name string
				ok   bool
			}{
				{"success", r.success >= targetSuccess && r.servedTime >= targetSuccess},
				{"p99", r.p99 <= targetP99},
				{"RSS", r.rss < targetRSS},
				{"recovery", r.recovery >= 0 && r.recovery <= targetRecovery},
				{"no crash", !r.crashed},
			}
			if r.attack == "all-at-once" {
				// Issue 33's targets for every flood at once: RSS
				// under 1 GB and the client at 95 %; no p99 target.
				checks = slices.DeleteFunc(checks, func(c struct {
					name string
					ok   bool
				}) bool {
					return c.name == "p99"
				})
				checks[1] = struct {
					name string
					ok   bool
				}{"RSS < 1 GB", r.rss < targetRSSAll}
			}
			var parts []string
			for _, c := range checks {
				total++
				if c.ok {
					met++
				}
				parts = append(parts, c.name+" "+mark(c.ok))
			}
			targets = strings.Join(parts, ", ")
			if w := worseThanMonerod(r, rows); w != "" {
				targets += "; worse than monerod where it beats a target: " + w
				worse++
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.1f %% | %.1f %% | %.1f | %.1f | %d | %s | %s | %s |\n", r.attack, r.node, r.requests, r.success, r.servedTime,
			ms(r.p50), ms(r.p99), r.rss>>20, fmtRecovery(r.recovery), targets, r.note)
	}
	fmt.Fprintf(&b, "\ngonerod targets (success >= %.0f %% of the requests and of the time, p99 <= %v, RSS < %d MB, recovery <= %v, no crash; all-at-once: RSS < 1 GB, no p99 target): %d of %d met.\n",
		targetSuccess, targetP99, targetRSS>>20, targetRecovery, met, total)
	fmt.Fprintf(&b, "Rows where gonerod does worse than monerod on a measure where monerod beats the target (issue 33: gonerod at least as well there): %d.\n", worse)
	b.WriteString("\nAttacks:\n\n")
	for _, a := range attacks() {
		fmt.Fprintf(&b, "- `%s`: %s\n", a.name, a.what)
	}
	return b.String()
}
