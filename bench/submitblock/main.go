// Command submitblock solo-mines on a node the way a miner in daemon mode
// (XMRig's) does, and times the node's answers to submit_block: for each
// block it asks get_block_template, searches nonces with RandomX (light mode,
// the template's seed) until a hash meets the template's difficulty, patches
// the nonce into the template blob and submits it. Only the submit_block
// round trip is timed; the miner's own hashing is not.
//
//	submitblock -rpc LABEL=HOST:PORT[,LABEL=HOST:PORT...] -n BLOCKS [-address ADDR]
//
// Several nodes (each on a chain of its own) are mined in turns, a block on
// each per round. It prints one line per block ("LABEL block HEIGHT
// submit_ms MS hashes N"), then per node "LABEL summary first_ms F median_ms
// M p90_ms P blocks N", where F is the node's first submission's latency
// and M and P (nearest rank) are over the blocks after it, and for two
// nodes "ratio A/B first F median M p90 P". A block the node does not
// accept (status not OK, or the chain does not grow by one) is an error:
// the figures would not be of a node adding blocks.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/randomx"
)

// alice is testdata/regtest's wallet "alice" (mainnet format, which regtest
// uses).
const alice = "43HBKxZWFcNgr7c5wiJdRoRb8cqWwS1h4gE5P5MSd27CJDHpVogKad5jJnyYk9m1u11bLAwbNfAawGYbkGEKN1tdVGKR9MS"

type client struct {
	url  string
	http *http.Client
}

func (c *client) call(method string, params any, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "0", "method": method, "params": params})
	if err != nil {
		return err
	}
	resp, err := c.http.Post(c.url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s: %v (%q)", method, err, raw)
	}
	if env.Error != nil {
		return fmt.Errorf("%s: error %d: %s", method, env.Error.Code, env.Error.Message)
	}
	return json.Unmarshal(env.Result, result)
}

type template struct {
	Blob       string `json:"blocktemplate_blob"`
	Difficulty uint64 `json:"difficulty"`
	Height     uint64 `json:"height"`
	SeedHash   string `json:"seed_hash"`
	Status     string `json:"status"`
}

// node is one daemon under test and the latencies of its submissions.
type node struct {
	label string
	c     *client
	took  []time.Duration
}

func main() {
	rpcs := flag.String("rpc", "", "the nodes: LABEL=HOST:PORT, comma-separated (e.g. gonerod=127.0.0.1:38082,monerod=127.0.0.1:38081)")
	n := flag.Int("n", 20, "blocks to mine on each node")
	addr := flag.String("address", alice, "address the blocks pay to")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("submitblock: ")
	var nodes []*node
	for _, spec := range strings.Split(*rpcs, ",") {
		label, hostport, ok := strings.Cut(spec, "=")
		if !ok || label == "" || hostport == "" {
			log.Fatalf("-rpc %q: want LABEL=HOST:PORT", spec)
		}
		nodes = append(nodes, &node{label: label, c: &client{url: "http://" + hostport + "/json_rpc", http: &http.Client{Timeout: 60 * time.Second}}})
	}
	if *n < 2 {
		log.Fatal("-n must be at least 2: the first block, then the blocks the median is taken over")
	}
	hasher, err := randomx.New(randomx.Options{VMs: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer hasher.Close()

	// Round by round, one block on each node, the nodes' order alternating,
	// so that both see the same machine (whatever else runs on it) over
	// the run. The first round goes in the order given.
	for round := range *n {
		for i := range nodes {
			nd := nodes[i]
			if round%2 == 1 {
				nd = nodes[len(nodes)-1-i]
			}
			took, height, hashes, err := mineOne(nd.c, hasher, *addr)
			if err != nil {
				log.Fatalf("%s: %v", nd.label, err)
			}
			nd.took = append(nd.took, took)
			fmt.Printf("%s block %d submit_ms %.2f hashes %d\n", nd.label, height, millis(took), hashes)
		}
	}
	type figures struct{ first, median, p90 time.Duration }
	var all []figures
	for _, nd := range nodes {
		rest := slices.Clone(nd.took[1:])
		slices.Sort(rest)
		f := figures{nd.took[0], quantile(rest, 0.5), quantile(rest, 0.9)}
		all = append(all, f)
		fmt.Printf("%s summary first_ms %.2f median_ms %.2f p90_ms %.2f blocks %d\n", nd.label,
			millis(f.first), millis(f.median), millis(f.p90), len(nd.took))
	}
	if len(nodes) == 2 {
		a, b := all[0], all[1]
		fmt.Printf("ratio %s/%s first %.2f median %.2f p90 %.2f\n", nodes[0].label, nodes[1].label,
			ratio(a.first, b.first), ratio(a.median, b.median), ratio(a.p90, b.p90))
	}
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// mineOne mines and submits one block, returning the submit_block round trip.
func mineOne(c *client, hasher *randomx.Hasher, addr string) (time.Duration, uint64, int, error) {
	var t template
	if err := c.call("get_block_template", map[string]any{"wallet_address": addr, "reserve_size": 1}, &t); err != nil {
		return 0, 0, 0, err
	}
	blob, err := hex.DecodeString(t.Blob)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("template blob: %v", err)
	}
	seed, err := cryptonote.ParseHash(t.SeedHash)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("seed_hash: %v", err)
	}
	blk, err := cryptonote.ParseBlock(blob)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("template blob: %v", err)
	}
	// The nonce is the header's last 4 bytes, at the same offset in the
	// template blob and in the hashing blob.
	at := len(cryptonote.AppendBlockHeader(nil, &blk.BlockHeader)) - 4
	hashing := blk.HashingBlob()
	difficulty := u128.From64(t.Difficulty)
	hashes := 0
	var nonce uint32
	for ; ; nonce++ {
		binary.LittleEndian.PutUint32(hashing[at:], nonce)
		h, err := consensus.BlockPoWHash(hasher, t.Height, blk.MajorVersion, seed, hashing)
		if err != nil {
			return 0, 0, 0, err
		}
		hashes++
		if consensus.CheckPoWHash(h, difficulty) {
			break
		}
		if nonce == 0xffffffff {
			return 0, 0, 0, errors.New("no nonce meets the difficulty")
		}
	}
	binary.LittleEndian.PutUint32(blob[at:], nonce)

	var res struct {
		Status string `json:"status"`
	}
	began := time.Now()
	err = c.call("submit_block", []string{hex.EncodeToString(blob)}, &res)
	took := time.Since(began)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("height %d: %v", t.Height, err)
	}
	if res.Status != "OK" {
		return 0, 0, 0, fmt.Errorf("height %d: submit_block status %q", t.Height, res.Status)
	}
	var info struct {
		Height uint64 `json:"height"`
	}
	if err := c.call("get_info", struct{}{}, &info); err != nil {
		return 0, 0, 0, err
	}
	if info.Height != t.Height+1 {
		return 0, 0, 0, fmt.Errorf("height %d: submitted, but the chain's height is %d", t.Height, info.Height)
	}
	return took, t.Height, hashes, nil
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// quantile is the nearest-rank quantile of sorted durations.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
