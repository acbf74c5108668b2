package metrics

import "testing"

// TestZMQRPCCounts: the ZMQ RPC's connection counts are series, read at
// each scrape.
func TestZMQRPCCounts(t *testing.T) {
	counts := ZMQRPCCounts{Open: 3, RefusedPerHost: 5, RefusedTotal: 7, Evicted: 11}
	m := New()
	m.Watch(Sources{ZMQRPC: func() ZMQRPCCounts { return counts }})
	reg := m.Registry()
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"gonero_zmq_rpc_connections_open", nil, 3},
		{"gonero_zmq_rpc_connections_refused_total", []string{"reason", "per_ip"}, 5},
		{"gonero_zmq_rpc_connections_refused_total", []string{"reason", "total"}, 7},
		{"gonero_zmq_rpc_connections_evicted_total", nil, 11},
	} {
		if got := mustValue(t, reg, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	counts.Evicted = 12
	if got := mustValue(t, reg, "gonero_zmq_rpc_connections_evicted_total"); got != 12 {
		t.Errorf("after a change the scrape reads %v, want 12", got)
	}
}
