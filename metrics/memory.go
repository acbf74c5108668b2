package metrics

import (
	"github.com/gonero/gonero/membudget"
	"github.com/prometheus/client_golang/prometheus"
)

// MemoryPart is one part of the node drawing on the memory budget
// (membudget.Account), by name ("rpc"); Part "" is the global total.
type MemoryPart struct {
	Part  string
	Stats membudget.Stats
}

// memoryCollector reads the memory budget's use once per scrape.
type memoryCollector struct {
	read                     func() []MemoryPart
	used, peak, limit, clnts *prometheus.Desc
	claims, refused          *prometheus.Desc
}

func newMemoryCollector(read func() []MemoryPart) *memoryCollector {
	part := []string{"part"}
	return &memoryCollector{
		read: read,
		used: prometheus.NewDesc("gonero_memory_budget_used_bytes",
			"Bytes held now against the node's memory budget (--memory-budget): part=\"total\" all of them, other parts (rpc) their own.", part, nil),
		peak: prometheus.NewDesc("gonero_memory_budget_peak_bytes",
			"Most bytes held at once against the memory budget since start, by part.", part, nil),
		limit: prometheus.NewDesc("gonero_memory_budget_limit_bytes",
			"The memory budget's bound: part=\"total\" the global total, other parts the per-client limit (0: none).", part, nil),
		clnts: prometheus.NewDesc("gonero_memory_budget_clients",
			"Clients (address groups, peers) holding bytes of a part now.", part, nil),
		claims: prometheus.NewDesc("gonero_memory_budget_claims_total",
			"Claims on the memory budget granted, by part.", part, nil),
		refused: prometheus.NewDesc("gonero_memory_budget_refused_total",
			"Claims on the memory budget refused (the newest claimant, past the global total or its client's limit), by part.", part, nil),
	}
}

func (c *memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.used, c.peak, c.limit, c.clnts, c.claims, c.refused} {
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
		gauge(c.peak, float64(p.Stats.Peak))
		gauge(c.limit, float64(p.Stats.Total))
		ch <- prometheus.MustNewConstMetric(c.refused, prometheus.CounterValue, float64(p.Stats.Refused), name)
		if p.Part != "" {
			gauge(c.clnts, float64(p.Stats.Clients))
			ch <- prometheus.MustNewConstMetric(c.claims, prometheus.CounterValue, float64(p.Stats.Claims), name)
		}
	}
}
