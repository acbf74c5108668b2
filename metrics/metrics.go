// Package metrics exposes the node's state and activity to Prometheus on a
// listener of its own. The layers below (chain, txpool, p2p, rpc) do not
// know Prometheus: they take tiny hook interfaces (chain.BlockObserver,
// txpool.Observer, rpc.Config.Instrument) or are read at scrape time
// (height, pool, peers, store size), so that watching the node costs the
// node nothing between scrapes beyond a few atomic adds.
package metrics

import (
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Chain is what the metrics read from the chain at scrape time.
type Chain interface {
	Height() uint64
}

// Peers is what the metrics read from the P2P node at scrape time
// (p2p.Node, rpc.Peers).
type Peers interface {
	Counts() (incoming, outgoing, white, grey uint64)
	Synchronized() bool
	TargetHeight() uint64
}

// SyncCounter is a Peers that also counts the blocks peers gave (p2p.Node).
type SyncCounter interface {
	BlocksFromPeers() uint64
}

// PanicCounter is a Peers that recovers panics below its connections
// and counts them (p2p.Node).
type PanicCounter interface {
	HandlerPanics() uint64
}

// Pool is what the metrics read from the transaction pool at scrape time.
type Pool interface {
	Stats() (count int, bytes uint64)
}

// Sources are the node's parts read at scrape time; a nil one is left out.
type Sources struct {
	Chain Chain
	Peers Peers
	Pool  Pool
	// StorePath is the chain store's file: its size and its index
	// directory's (chaindb.DiskSize) are gonero_store_size_bytes.
	StorePath string
	Version   string
	// RPCDefences reads what the RPC listeners' defences did
	// (the node's rpcDefenceCounts, in rpcconfig.go); nil: not exported.
	RPCDefences func() RPCDefenceCounts
	// P2PLimits reads the P2P rate limiters and memory budgets (the
	// node's p2pLimitCounts, in p2p.go); nil: not exported.
	P2PLimits func() P2PLimitCounts
	// ZMQRPC reads the ZMQ RPC server's connection counts; nil: not
	// exported (no ZMQ RPC).
	ZMQRPC func() ZMQRPCCounts
	// Memory reads the memory budget's use: the global total (Part "")
	// and each part drawing on it; nil: not exported.
	Memory func() []MemoryPart
}

// Buckets of the histograms, in seconds. RPC answers range from a cached
// header (microseconds) to a big getblocks.bin (a second); a block's
// verification from a coinbase-only regtest block (a millisecond) to a
// full mainnet block with RandomX and many ring signatures (seconds).
var (
	rpcBuckets   = []float64{10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1, 2.5}
	blockBuckets = []float64{1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1, 2.5, 5, 10, 30}
)

// Metrics is the node's metric registry and the hooks that feed it.
type Metrics struct {
	reg *prometheus.Registry

	blocksVerified prometheus.Counter
	blocksRefused  map[string]prometheus.Counter // by reason, bound up front
	blockSeconds   prometheus.Histogram
	txsVerified    prometheus.Counter
	txsRefused     map[string]prometheus.Counter

	rpcRequests *prometheus.CounterVec
	rpcSeconds  *prometheus.HistogramVec
}

// New makes the registry with the Go runtime and process collectors and
// the event metrics; Watch adds the node's state.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.blocksVerified = prometheus.NewCounter(prometheus.CounterOpts{Name: "gonero_blocks_verified_total",
		Help: "Blocks that passed verification and were stored (main chain or alternative)."})
	refused := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gonero_blocks_refused_total",
		Help: "Blocks refused, by the rule they broke (a fixed set; already_known and orphan are not faults)."}, []string{"reason"})
	m.blockSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "gonero_block_verification_seconds",
		Help: "Time to verify and store one block (refused ones included).", Buckets: blockBuckets})
	m.txsVerified = prometheus.NewCounter(prometheus.CounterOpts{Name: "gonero_transactions_verified_total",
		Help: "Transactions that passed verification and entered the pool."})
	txRefused := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gonero_transactions_refused_total",
		Help: "Transactions the pool refused, by the first of monerod's verification flags they raised, or already_in_pool, already_in_chain, verification_failed (no flag)."}, []string{"reason"})
	m.rpcRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gonero_rpc_requests_total",
		Help: "RPC requests answered, by path or JSON-RPC method (other: anything unregistered)."}, []string{"method"})
	m.rpcSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gonero_rpc_request_duration_seconds",
		Help: "Time to answer an RPC request, by path or JSON-RPC method, HTTP excluded.", Buckets: rpcBuckets}, []string{"method"})
	m.reg.MustRegister(m.blocksVerified, refused, m.blockSeconds, m.txsVerified, txRefused, m.rpcRequests, m.rpcSeconds)
	// Every reason is bound now: a refusal costs a map lookup and an
	// atomic add, and every series exists (at 0) from the first scrape, so
	// rate() and the dashboard see a reason's first refusal.
	m.blocksRefused = map[string]prometheus.Counter{}
	for _, r := range BlockRefusalReasons() {
		m.blocksRefused[r] = refused.WithLabelValues(r)
	}
	m.txsRefused = map[string]prometheus.Counter{}
	for _, r := range TxRefusalReasons() {
		m.txsRefused[r] = txRefused.WithLabelValues(r)
	}
	return m
}

// Registry is the registry /metrics serves.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Watch registers the gauges read from src at scrape time.
func (m *Metrics) Watch(src Sources) {
	gauge := func(name, help string, labels prometheus.Labels, f func() float64) {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels}, f))
	}
	if src.Version != "" {
		gauge("gonero_build_info", "Always 1; the version is the label.", prometheus.Labels{"version": src.Version}, func() float64 { return 1 })
	}
	if c := src.Chain; c != nil {
		gauge("gonero_chain_height_blocks", "Blocks in the main chain (get_info height: the top's height + 1).", nil,
			func() float64 { return float64(c.Height()) })
	}
	if p := src.Peers; p != nil {
		gauge("gonero_sync_target_height_blocks", "Height the peers report, when above ours (get_info target_height; 0 when none is).", nil,
			func() float64 { return float64(p.TargetHeight()) })
		gauge("gonero_synchronized", "1 once the node has caught up with its peers (sticky, as monerod's), else 0.", nil, func() float64 {
			if p.Synchronized() {
				return 1
			}
			return 0
		})
		// One collector reads both directions from one Counts call.
		m.reg.MustRegister(&peersCollector{peers: p, desc: prometheus.NewDesc("gonero_peers",
			"Open P2P connections, by direction (in, out).", []string{"direction"}, nil)})
		if sc, ok := p.(SyncCounter); ok {
			m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gonero_blocks_synced_total",
				Help: "Blocks received from peers (synced or announced) that the chain stored; rate() is the sync rate."},
				func() float64 { return float64(sc.BlocksFromPeers()) }))
		}
		if bc, ok := p.(BanCounter); ok {
			m.reg.MustRegister(newBanCollector(bc))
		}
		if rc, ok := p.(P2PRefusals); ok {
			m.reg.MustRegister(newP2PRefusalsCollector(rc))
		}
		if pc, ok := p.(PanicCounter); ok {
			m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gonero_p2p_panics_total",
				Help: "Panics recovered while handling a peer's messages; each dropped its peer. Any is a bug."},
				func() float64 { return float64(pc.HandlerPanics()) }))
		}
	}
	if p := src.Pool; p != nil {
		gauge("gonero_txpool_transactions", "Transactions in the pool.", nil, func() float64 {
			n, _ := p.Stats()
			return float64(n)
		})
		gauge("gonero_txpool_bytes", "Bytes of the pool's transactions (their blobs).", nil, func() float64 {
			_, b := p.Stats()
			return float64(b)
		})
	}
	if f := src.Memory; f != nil {
		m.reg.MustRegister(newMemoryCollector(f))
	}
	if f := src.ZMQRPC; f != nil {
		m.reg.MustRegister(newZMQRPCCollector(f))
	}
	if f := src.RPCDefences; f != nil {
		m.reg.MustRegister(newRPCDefencesCollector(f))
	}
	if f := src.P2PLimits; f != nil {
		m.reg.MustRegister(newP2PLimitsCollector(f))
	}
	if path := src.StorePath; path != "" {
		gauge("gonero_store_size_bytes", "Size of the chain store's file and its index directory.", nil, func() float64 {
			n, err := chaindb.DiskSize(path)
			if err != nil {
				return 0
			}
			return float64(n)
		})
	}
}

type peersCollector struct {
	peers Peers
	desc  *prometheus.Desc
}

func (c *peersCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c *peersCollector) Collect(ch chan<- prometheus.Metric) {
	in, out, _, _ := c.peers.Counts()
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(in), "in")
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(out), "out")
}

// BlockChecked implements chain.BlockObserver.
func (m *Metrics) BlockChecked(err error, took time.Duration) {
	m.blockSeconds.Observe(took.Seconds())
	if err == nil {
		m.blocksVerified.Inc()
		return
	}
	m.blocksRefused[blockReason(err)].Inc()
}

// TxChecked implements txpool.Observer.
func (m *Metrics) TxChecked(err error) {
	if err == nil {
		m.txsVerified.Inc()
		return
	}
	m.txsRefused[txReason(err)].Inc()
}

// Endpoint is rpc.Config.Instrument: the observer of one endpoint's
// requests. The endpoint's series are made at its first request, not
// here (most of the ~150 names are never asked for, and each would cost
// a score of series on every scrape); after that an observation is two
// atomic adds and a bucket search, without allocation.
func (m *Metrics) Endpoint(name string) func(time.Duration) {
	o := &endpointObserver{m: m, name: name}
	return o.observe
}

type endpointObserver struct {
	m     *Metrics
	name  string
	bound atomic.Pointer[boundEndpoint]
}

type boundEndpoint struct {
	requests prometheus.Counter
	seconds  prometheus.Observer
}

func (o *endpointObserver) observe(d time.Duration) {
	b := o.bound.Load()
	if b == nil {
		// WithLabelValues returns the same children to racing first
		// requests: either Store wins and both count.
		b = &boundEndpoint{requests: o.m.rpcRequests.WithLabelValues(o.name), seconds: o.m.rpcSeconds.WithLabelValues(o.name)}
		o.bound.Store(b)
	}
	b.requests.Inc()
	b.seconds.Observe(d.Seconds())
}
