// Command wsload measures the throughput of a wallet-sync endpoint of a
// node (gonerod or monerod) with realistic wallet requests, over HTTP
// keep-alive connections on loopback; bench/wallet-endpoints.sh runs it.
//
//	wsload -url http://127.0.0.1:PORT -kind getblocks|getouts|distribution -genesis HEX -rct-outputs N -c 8 -d 10s
//	wsload -check -url URL1 -url2 URL2 ...   (the same requests to both; the answers must be byte-identical)
//	wsload -dump N -kind ...                 (N request bodies, hex, one per line, for wrk and bench/rpc/rpc.lua)
//
// Kinds, as a wallet sends them (docs/wallet-rpc.md §4):
//   - getblocks: /getblocks.bin from genesis (block_ids = [genesis]), prune true.
//   - getouts: /get_outs.bin of 150 random amount-0 outputs, get_txid false
//     (each request draws new ones; the seed is fixed, so both nodes get the
//     same sequence).
//   - distribution: /get_output_distribution.bin for amount 0, compress true.
//
// It prints one line: "WSRESULT kind=... conns=... requests=... errors=...
// seconds=... rps=... mbps=...".
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/portable"
)

func main() {
	url := flag.String("url", "", "node RPC base URL (http://127.0.0.1:PORT)")
	url2 := flag.String("url2", "", "with -check: the other node's base URL")
	kind := flag.String("kind", "getblocks", "getblocks, getouts or distribution")
	genesisHex := flag.String("genesis", "", "genesis block id (hex), for getblocks")
	rctOutputs := flag.Uint64("rct-outputs", 0, "number of amount-0 outputs, for getouts")
	conns := flag.Int("c", 1, "concurrent keep-alive clients")
	dur := flag.Duration("d", 10*time.Second, "measured duration")
	check := flag.Bool("check", false, "send 20 requests to -url and -url2 and compare the answers")
	dump := flag.Int("dump", 0, "write this many request bodies (hex, one per line) to stdout and exit")
	flag.Parse()

	gen, err := newGenerator(*kind, *genesisHex, *rctOutputs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wsload:", err)
		os.Exit(2)
	}
	if *dump > 0 {
		w := bufio.NewWriter(os.Stdout)
		for i := 0; i < *dump; i++ {
			fmt.Fprintln(w, hex.EncodeToString(gen.body()))
		}
		if err := w.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, "wsload:", err)
			os.Exit(1)
		}
		return
	}
	if *check {
		if err := compare(*url, *url2, gen); err != nil {
			fmt.Fprintln(os.Stderr, "wsload: check:", err)
			os.Exit(1)
		}
		fmt.Printf("WSCHECK kind=%s identical\n", *kind)
		return
	}
	run(*url, gen, *conns, *dur)
}

// generator makes request bodies; each client has its own (rand is not
// safe for concurrent use).
type generator struct {
	kind    string
	path    string
	genesis []byte
	outputs uint64
	rng     *rand.Rand
}

func newGenerator(kind, genesisHex string, outputs uint64) (*generator, error) {
	g := &generator{kind: kind, outputs: outputs, rng: rand.New(rand.NewSource(1))}
	switch kind {
	case "getblocks":
		g.path = "/getblocks.bin"
		b, err := hex.DecodeString(genesisHex)
		if err != nil || len(b) != 32 {
			return nil, fmt.Errorf("-genesis: want 64 hex digits, got %q", genesisHex)
		}
		g.genesis = b
	case "getouts":
		g.path = "/get_outs.bin"
		if outputs < 150 {
			return nil, fmt.Errorf("-rct-outputs %d: the chain needs at least 150 amount-0 outputs", outputs)
		}
	case "distribution":
		g.path = "/get_output_distribution.bin"
	default:
		return nil, fmt.Errorf("unknown -kind %q", kind)
	}
	return g, nil
}

func (g *generator) clone(seed int64) *generator {
	c := *g
	c.rng = rand.New(rand.NewSource(seed))
	return &c
}

// client is the 208 hex digits of an RPC-payment signature wallets send
// with every request (unused by a node without payments).
var client = portable.NewString(string(bytes.Repeat([]byte("0"), 208)))

func (g *generator) body() []byte {
	var s portable.Section
	s.Set("client", client)
	switch g.kind {
	case "getblocks":
		s.Set("block_ids", portable.NewBlob(g.genesis))
		s.Set("prune", portable.NewBool(true))
		s.Set("start_height", portable.NewUint64(0))
	case "getouts":
		// A wallet asks its decoys sorted by index.
		idx := make([]uint64, 150)
		for i := range idx {
			idx[i] = uint64(g.rng.Int63n(int64(g.outputs)))
		}
		sortU64(idx)
		secs := make([]portable.Section, len(idx))
		for i, x := range idx {
			secs[i].Set("amount", portable.NewUint64(0))
			secs[i].Set("index", portable.NewUint64(x))
		}
		s.Set("outputs", portable.NewObjectArray(secs))
		s.Set("get_txid", portable.NewBool(false))
	case "distribution":
		s.Set("amounts", portable.Value{Type: portable.ArrayFlag | portable.TypeUint64, Array: []portable.Value{portable.NewUint64(0)}})
		s.Set("compress", portable.NewBool(true))
	}
	b, err := portable.Encode(s)
	if err != nil {
		panic(err)
	}
	return b
}

func sortU64(a []uint64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// okStatus is the epee encoding of status "OK", which every good answer holds.
var okStatus = []byte("\x06status\x0a\x08OK")

func post(c *http.Client, url string, body []byte) ([]byte, error) {
	resp, err := c.Post(url, "", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return b, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if !bytes.Contains(b, okStatus) {
		return b, fmt.Errorf("answer without status OK (%d bytes)", len(b))
	}
	return b, nil
}

func compare(url1, url2 string, g *generator) error {
	c := &http.Client{Timeout: time.Minute}
	for i := 0; i < 20; i++ {
		body := g.body()
		a, err := post(c, url1+g.path, body)
		if err != nil {
			return fmt.Errorf("%s: %v", url1, err)
		}
		b, err := post(c, url2+g.path, body)
		if err != nil {
			return fmt.Errorf("%s: %v", url2, err)
		}
		if !bytes.Equal(a, b) {
			return fmt.Errorf("request %d: answers differ (%d and %d bytes)", i, len(a), len(b))
		}
	}
	return nil
}

func run(url string, g *generator, conns int, dur time.Duration) {
	var requests, errors, bytesIn atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var start time.Time
	ready := make(chan struct{})
	for i := 0; i < conns; i++ {
		gen := g.clone(int64(i + 1))
		// Bodies are made before the clock starts, so that the load
		// generator's own work (it shares the cores) weighs little.
		bodies := make([][]byte, 256)
		for j := range bodies {
			bodies[j] = gen.body()
		}
		// One connection per client, kept alive, as a wallet does.
		c := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1, DisableCompression: true}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			<-ready
			for {
				select {
				case <-stop:
					return
				default:
				}
				b, err := post(c, url+gen.path, bodies[n%len(bodies)])
				n++
				if err != nil {
					errors.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				requests.Add(1)
				bytesIn.Add(int64(len(b)))
			}
		}()
	}
	start = time.Now()
	close(ready)
	time.Sleep(dur)
	close(stop)
	wg.Wait()
	secs := time.Since(start).Seconds()
	fmt.Printf("WSRESULT kind=%s conns=%d requests=%d errors=%d seconds=%.2f rps=%.1f mbps=%.1f\n",
		g.kind, conns, requests.Load(), errors.Load(), secs, float64(requests.Load())/secs, float64(bytesIn.Load())/secs/1e6)
	if e := firstErr.Load(); e != nil {
		fmt.Fprintln(os.Stderr, "wsload: first error:", e)
	}
}
