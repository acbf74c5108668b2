package metrics

import "github.com/prometheus/client_golang/prometheus"

// P2PLimitCounts are the P2P rate limiters' and memory budgets' figures
// (p2p.LimitStats, docs/p2p.md "Limits").
type P2PLimitCounts struct {
	// RateUp, RateDown: the limits in bytes per second (0: unlimited).
	RateUp, RateDown uint64
	// BytesUp, BytesDown went through the limiters; WaitUp, WaitDown are
	// the seconds connections were held by them, summed.
	BytesUp, BytesDown uint64
	WaitUp, WaitDown   float64
	// LevinIn: bytes of incoming messages held now, LevinInBudget their
	// bound, LevinInRefused the messages (and peers) refused for it.
	LevinIn, LevinInBudget, LevinInRefused uint64
	// SendQueued: bytes queued for sending now, SendBudget their bound;
	// SendWaits: the times a peer's next message waited for room;
	// SendStalls: the peers dropped for never draining their queue.
	SendQueued, SendBudget, SendWaits, SendStalls uint64
}

// p2pLimitsCollector reads the figures once per scrape.
type p2pLimitsCollector struct {
	read                                 func() P2PLimitCounts
	rate, bytes, wait                    *prometheus.Desc
	budget, used, refused, waits, stalls *prometheus.Desc
}

func newP2PLimitsCollector(read func() P2PLimitCounts) *p2pLimitsCollector {
	dir := []string{"direction"}
	b := []string{"budget"}
	return &p2pLimitsCollector{read: read,
		rate: prometheus.NewDesc("gonero_p2p_rate_limit_bytes_per_second",
			"The P2P rate limit of all connections together, by direction (up, down; --limit-rate-up/down, set_limit); 0: unlimited.", dir, nil),
		bytes: prometheus.NewDesc("gonero_p2p_rate_limited_bytes_total",
			"Bytes the P2P connections moved through the rate limiter, by direction.", dir, nil),
		wait: prometheus.NewDesc("gonero_p2p_rate_limit_wait_seconds_total",
			"Seconds P2P connections waited for the rate limiter, summed over the connections, by direction.", dir, nil),
		budget: prometheus.NewDesc("gonero_p2p_budget_bytes",
			"The P2P memory budgets' bounds, by budget (levin_in: incoming messages held, --p2p-levin-in-budget; send: answers queued, --p2p-send-budget).", b, nil),
		used: prometheus.NewDesc("gonero_p2p_budget_used_bytes",
			"Bytes the P2P memory budgets hold now, by budget (levin_in, send).", b, nil),
		refused: prometheus.NewDesc("gonero_p2p_levin_in_refused_total",
			"Incoming P2P messages refused unread (and their peers dropped) because they would take the levin-in budget past its bound.", nil, nil),
		waits: prometheus.NewDesc("gonero_p2p_send_waits_total",
			"Times a peer's next message waited for room in its own or the node's send queues.", nil, nil),
		stalls: prometheus.NewDesc("gonero_p2p_send_stalls_total",
			"Peers dropped because their send queue stayed over its bound with nothing sent.", nil, nil),
	}
}

func (c *p2pLimitsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.rate, c.bytes, c.wait, c.budget, c.used, c.refused, c.waits, c.stalls} {
		ch <- d
	}
}

func (c *p2pLimitsCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.read()
	m := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, t, v, labels...)
	}
	m(c.rate, prometheus.GaugeValue, float64(st.RateUp), "up")
	m(c.rate, prometheus.GaugeValue, float64(st.RateDown), "down")
	m(c.bytes, prometheus.CounterValue, float64(st.BytesUp), "up")
	m(c.bytes, prometheus.CounterValue, float64(st.BytesDown), "down")
	m(c.wait, prometheus.CounterValue, st.WaitUp, "up")
	m(c.wait, prometheus.CounterValue, st.WaitDown, "down")
	m(c.budget, prometheus.GaugeValue, float64(st.LevinInBudget), "levin_in")
	m(c.budget, prometheus.GaugeValue, float64(st.SendBudget), "send")
	m(c.used, prometheus.GaugeValue, float64(st.LevinIn), "levin_in")
	m(c.used, prometheus.GaugeValue, float64(st.SendQueued), "send")
	m(c.refused, prometheus.CounterValue, float64(st.LevinInRefused))
	m(c.waits, prometheus.CounterValue, float64(st.SendWaits))
	m(c.stalls, prometheus.CounterValue, float64(st.SendStalls))
}
