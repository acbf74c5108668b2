package metrics

import "github.com/prometheus/client_golang/prometheus"

// P2PRefusals is a Peers that counts the connections it refused at accept
// and those it dropped for a memory bound, by reason (p2p.Node). Each map
// has the same fixed keys at every call, so the label set is the node's,
// never a peer's.
type P2PRefusals interface {
	RefusedConnections() map[string]uint64
	DroppedPeers() map[string]uint64
}

// p2pRefusalsCollector reads both counts at scrape time.
type p2pRefusalsCollector struct {
	src              P2PRefusals
	refused, dropped *prometheus.Desc
}

func newP2PRefusalsCollector(src P2PRefusals) *p2pRefusalsCollector {
	return &p2pRefusalsCollector{src: src,
		refused: prometheus.NewDesc("gonero_p2p_connections_refused_total",
			"Incoming P2P connections refused at accept, by reason (banned, in_peers, per_host, other).", []string{"reason"}, nil),
		dropped: prometheus.NewDesc("gonero_p2p_peers_dropped_total",
			"P2P connections dropped for a memory bound or garbage, by reason (send_queue_full, message_too_large, not_levin, send_stalled, levin_in_budget, send_budget).", []string{"reason"}, nil)}
}

func (c *p2pRefusalsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.refused; ch <- c.dropped }
func (c *p2pRefusalsCollector) Collect(ch chan<- prometheus.Metric) {
	for r, v := range c.src.RefusedConnections() {
		ch <- prometheus.MustNewConstMetric(c.refused, prometheus.CounterValue, float64(v), r)
	}
	for r, v := range c.src.DroppedPeers() {
		ch <- prometheus.MustNewConstMetric(c.dropped, prometheus.CounterValue, float64(v), r)
	}
}
