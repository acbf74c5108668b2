package metrics

import "github.com/prometheus/client_golang/prometheus"

// ZMQRPCCounts are what the ZMQ RPC server's connection rules did since
// start (zmqrpc.Server.ConnStats; docs/zmq.md).
type ZMQRPCCounts struct {
	Open int // connections open now
	// Connections refused: the per-address bound, and the 256-connection
	// bound with no slot of a larger group to take.
	RefusedPerHost, RefusedTotal uint64
	// Connections closed to give their slot to another address group.
	Evicted uint64
}

// zmqRPCCollector reads the counts once per scrape.
type zmqRPCCollector struct {
	read                   func() ZMQRPCCounts
	open, refused, evicted *prometheus.Desc
}

func newZMQRPCCollector(read func() ZMQRPCCounts) *zmqRPCCollector {
	return &zmqRPCCollector{
		read: read,
		open: prometheus.NewDesc("gonero_zmq_rpc_connections_open", "ZMQ RPC connections open now.", nil, nil),
		refused: prometheus.NewDesc("gonero_zmq_rpc_connections_refused_total",
			"ZMQ RPC connections refused at accept, by reason: per_ip (--rpc-max-connections-per-public-ip or -private-ip), total (256 open, no slot of a larger address group to take).",
			[]string{"reason"}, nil),
		evicted: prometheus.NewDesc("gonero_zmq_rpc_connections_evicted_total",
			"ZMQ RPC connections closed at the 256-connection bound to give their slot to a smaller address group.", nil, nil),
	}
}

func (c *zmqRPCCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.open
	ch <- c.refused
	ch <- c.evicted
}

func (c *zmqRPCCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.read()
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, float64(st.Open))
	ch <- prometheus.MustNewConstMetric(c.refused, prometheus.CounterValue, float64(st.RefusedPerHost), "per_ip")
	ch <- prometheus.MustNewConstMetric(c.refused, prometheus.CounterValue, float64(st.RefusedTotal), "total")
	ch <- prometheus.MustNewConstMetric(c.evicted, prometheus.CounterValue, float64(st.Evicted))
}
