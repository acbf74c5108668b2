package metrics

import "testing"

// TestRPCDefences: every count of the RPC defences is a series with its
// reason, read at each scrape.
func TestRPCDefences(t *testing.T) {
	counts := RPCDefenceCounts{Open: 7, RefusedPerIP: 1, RefusedTotal: 2, RefusedRate: 3,
		EvictedIdle: 4, EvictedBusy: 5, MeteredWaits: 6, MeteredBusy: 8,
		ProbationStarted: 9, ProbationAdmitted: 10, ProbationExpired: 11, ProbationBumped: 12}
	m := New()
	m.Watch(Sources{RPCDefences: func() RPCDefenceCounts { return counts }})
	reg := m.Registry()
	for _, c := range []struct {
		name, label, value string
		want               float64
	}{
		{"gonero_rpc_connections_open", "", "", 7},
		{"gonero_rpc_connections_refused_total", "reason", "per_ip", 1},
		{"gonero_rpc_connections_refused_total", "reason", "total", 2},
		{"gonero_rpc_connections_refused_total", "reason", "rate", 3},
		{"gonero_rpc_connections_evicted_total", "reason", "idle", 4},
		{"gonero_rpc_connections_evicted_total", "reason", "busy", 5},
		{"gonero_rpc_requests_metered_total", "outcome", "waited", 6},
		{"gonero_rpc_requests_metered_total", "outcome", "busy", 8},
		{"gonero_rpc_connections_probation_total", "outcome", "started", 9},
		{"gonero_rpc_connections_probation_total", "outcome", "admitted", 10},
		{"gonero_rpc_connections_probation_total", "outcome", "expired", 11},
		{"gonero_rpc_connections_probation_total", "outcome", "bumped", 12},
	} {
		var labels []string
		if c.label != "" {
			labels = []string{c.label, c.value}
		}
		if got := mustValue(t, reg, c.name, labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, labels, got, c.want)
		}
	}
	counts.EvictedIdle = 40
	if got := mustValue(t, reg, "gonero_rpc_connections_evicted_total", "reason", "idle"); got != 40 {
		t.Errorf("after a change the scrape reads %v, want 40", got)
	}
}
