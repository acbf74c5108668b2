package metrics

import "testing"

// The P2P limiters' and budgets' figures are read at each scrape, each
// under its name and label.
func TestP2PLimits(t *testing.T) {
	st := P2PLimitCounts{RateUp: 1, RateDown: 2, BytesUp: 3, BytesDown: 4, WaitUp: 5.5, WaitDown: 6.5,
		LevinIn: 7, LevinInBudget: 8, LevinInRefused: 9, SendQueued: 10, SendBudget: 11, SendWaits: 12, SendStalls: 13}
	m := New()
	m.Watch(Sources{P2PLimits: func() P2PLimitCounts { return st }})
	reg := m.Registry()
	for _, c := range []struct {
		name, label, value string
		want               float64
	}{
		{"gonero_p2p_rate_limit_bytes_per_second", "direction", "up", 1},
		{"gonero_p2p_rate_limit_bytes_per_second", "direction", "down", 2},
		{"gonero_p2p_rate_limited_bytes_total", "direction", "up", 3},
		{"gonero_p2p_rate_limited_bytes_total", "direction", "down", 4},
		{"gonero_p2p_rate_limit_wait_seconds_total", "direction", "up", 5.5},
		{"gonero_p2p_rate_limit_wait_seconds_total", "direction", "down", 6.5},
		{"gonero_p2p_budget_used_bytes", "budget", "levin_in", 7},
		{"gonero_p2p_budget_bytes", "budget", "levin_in", 8},
		{"gonero_p2p_levin_in_refused_total", "", "", 9},
		{"gonero_p2p_budget_used_bytes", "budget", "send", 10},
		{"gonero_p2p_budget_bytes", "budget", "send", 11},
		{"gonero_p2p_send_waits_total", "", "", 12},
		{"gonero_p2p_send_stalls_total", "", "", 13},
	} {
		var labels []string
		if c.label != "" {
			labels = []string{c.label, c.value}
		}
		if got := mustValue(t, reg, c.name, labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, labels, got, c.want)
		}
	}
	st.SendQueued = 100
	if got := mustValue(t, reg, "gonero_p2p_budget_used_bytes", "budget", "send"); got != 100 {
		t.Errorf("after a change the scrape reads %v, want 100", got)
	}
}
