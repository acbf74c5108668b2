package metrics

import "github.com/prometheus/client_golang/prometheus"

// RPCDefenceCounts are what the RPC listeners' defences did since start
// (httpd.GuardStats, summed over the listeners; docs/public-node.md).
type RPCDefenceCounts struct {
	Open int // RPC connections open now
	// Connections refused: monerod's per-IP limit, the total limit with no
	// fair slot to take, the per-group rate of new connections.
	RefusedPerIP, RefusedTotal, RefusedRate uint64
	// Connections closed to give their slot to another address group:
	// idle ones, and (last resort) ones in the middle of a request.
	EvictedIdle, EvictedBusy uint64
	// Requests of groups over their serving budget that waited for a
	// metered slot, and those answered BUSY after waiting in vain.
	MeteredWaits, MeteredBusy uint64
	// Connections put on probation at the cap, and of those: admitted by
	// their first request, closed without one, closed for a newer one.
	ProbationStarted, ProbationAdmitted, ProbationExpired, ProbationBumped uint64
}

// rpcDefencesCollector reads the counts once per scrape.
type rpcDefencesCollector struct {
	read                   func() RPCDefenceCounts
	open, refused, evicted *prometheus.Desc
	metered, probation     *prometheus.Desc
}

func newRPCDefencesCollector(read func() RPCDefenceCounts) *rpcDefencesCollector {
	return &rpcDefencesCollector{
		read: read,
		open: prometheus.NewDesc("gonero_rpc_connections_open", "RPC connections open now (all listeners).", nil, nil),
		refused: prometheus.NewDesc("gonero_rpc_connections_refused_total",
			"RPC connections refused at accept, by reason: per_ip (monerod's per-IP limit), total (--rpc-max-connections, no fair slot to take), rate (the address group opens connections faster than --rpc-connection-rate).",
			[]string{"reason"}, nil),
		evicted: prometheus.NewDesc("gonero_rpc_connections_evicted_total",
			"RPC connections closed at the cap to give their slot to a smaller address group, by state: idle (between requests or before a whole request), busy (in a request, last resort).",
			[]string{"reason"}, nil),
		metered: prometheus.NewDesc("gonero_rpc_requests_metered_total",
			"RPC requests of address groups over their serving budget: waited (for a metered slot), busy (answered BUSY after --rpc-metered-wait).",
			[]string{"outcome"}, nil),
		probation: prometheus.NewDesc("gonero_rpc_connections_probation_total",
			"RPC connections that found the cap full and no slot to take at once, put on probation until their first request: started, admitted (their request claimed a slot), expired (no whole request in time), bumped (closed for a newer one). A request that found no slot counts in gonero_rpc_connections_refused_total{reason=\"total\"}.",
			[]string{"outcome"}, nil),
	}
}

func (c *rpcDefencesCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.open
	ch <- c.refused
	ch <- c.evicted
	ch <- c.metered
	ch <- c.probation
}

func (c *rpcDefencesCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.read()
	counter := func(d *prometheus.Desc, v uint64, label string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), label)
	}
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, float64(st.Open))
	counter(c.refused, st.RefusedPerIP, "per_ip")
	counter(c.refused, st.RefusedTotal, "total")
	counter(c.refused, st.RefusedRate, "rate")
	counter(c.evicted, st.EvictedIdle, "idle")
	counter(c.evicted, st.EvictedBusy, "busy")
	counter(c.metered, st.MeteredWaits, "waited")
	counter(c.metered, st.MeteredBusy, "busy")
	counter(c.probation, st.ProbationStarted, "started")
	counter(c.probation, st.ProbationAdmitted, "admitted")
	counter(c.probation, st.ProbationExpired, "expired")
	counter(c.probation, st.ProbationBumped, "bumped")
}
