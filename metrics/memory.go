package metrics

import (
	"github.com/gonero/gonero/membudget"
	"github.com/prometheus/client_golang/prometheus"
)

// MemoryPart is one part of the node drawing on the memory budget
// (membudget.Account), by name ("rpc", "levin_in", "p2p_send",
// "sync_blocks"); Part "" is the global total. Outside marks a part
// reported beside the budget and not counted in its total (txpool: Used
// its bytes, Limit its weight bound, Clients its transactions).
type MemoryPart struct {
	Part    string
	Outside bool
	Stats   membudget.Stats
}

// memoryCollector reads the memory budget's use once per scrape.
type memoryCollector struct {
	read                           func() []MemoryPart
	used, peak, limit, part, clnts *prometheus.Desc
	claims, refused                *prometheus.Desc
}

func newMemoryCollector(read func() []MemoryPart) *memoryCollector {
	part := []string{"part"}
	return &memoryCollector{
		read: read,
		used: prometheus.NewDesc("gonero_memory_budget_used_bytes",
			"Bytes held now against the node's memory budget (--memory-budget): part=\"total\" all of them, other parts (rpc, levin_in, p2p_send, sync_blocks, zmq_rpc_requests, zmq_rpc_answers) their own; part=\"txpool\" the pool's bytes, reported beside the budget and not counted in its total.", part, nil),
		peak: prometheus.NewDesc("gonero_memory_budget_peak_bytes",
			"Most bytes held at once against the memory budget since start, by part.", part, nil),
		limit: prometheus.NewDesc("gonero_memory_budget_limit_bytes",
			"The memory budget's bound: part=\"total\" the global total, other parts the per-client limit (0: none).", part, nil),
		part: prometheus.NewDesc("gonero_memory_budget_part_limit_bytes",
			"A part's own bound within the total (rpc: half the total; levin_in: --p2p-levin-in-budget; p2p_send: --p2p-send-budget; zmq_rpc_requests and zmq_rpc_answers: a quarter and half of the total, at most 64 and 128 MiB; txpool: --max-txpool-weight; 0: none but the total).", part, nil),
		clnts: prometheus.NewDesc("gonero_memory_budget_clients",
			"Clients (address groups, peers) holding bytes of a part now (txpool: its transactions).", part, nil),
		claims: prometheus.NewDesc("gonero_memory_budget_claims_total",
			"Claims on the memory budget granted, by part.", part, nil),
		refused: prometheus.NewDesc("gonero_memory_budget_refused_total",
			"Claims on the memory budget refused (the newest claimant, past the global total or its client's limit), by part.", part, nil),
	}
}

func (c *memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.used, c.peak, c.limit, c.part, c.clnts, c.claims, c.refused} {
		ch <- d
	}
}

func (c *memoryCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.read() {
		name := p.Part
		if name == "" {
			name = "total"
		}
		gauge := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, name)
		}
		gauge(c.used, float64(p.Stats.Used))
		if p.Outside {
			gauge(c.part, float64(p.Stats.Limit))
			gauge(c.clnts, float64(p.Stats.Clients))
			continue
		}
		gauge(c.peak, float64(p.Stats.Peak))
		gauge(c.limit, float64(p.Stats.Total))
		ch <- prometheus.MustNewConstMetric(c.refused, prometheus.CounterValue, float64(p.Stats.Refused), name)
		if p.Part != "" {
			gauge(c.part, float64(p.Stats.Limit))
			gauge(c.clnts, float64(p.Stats.Clients))
			ch <- prometheus.MustNewConstMetric(c.claims, prometheus.CounterValue, float64(p.Stats.Claims), name)
		}
	}
}
