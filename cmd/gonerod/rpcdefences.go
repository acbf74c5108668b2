package main

import (
	"errors"
	"time"

	"github.com/spf13/pflag"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/metrics"
	"github.com/gonero/gonero/rpc"
)

// rpcDefenceOptions are the flags of the RPC defences beyond monerod's
// limits (docs/public-node.md). They are gonero's own; the fair sharing
// of connection slots at --rpc-max-connections has no flag.
type rpcDefenceOptions struct {
	connectionRate  float64
	connectionBurst int
	meterCapacity   float64
	meterBurst      time.Duration
	meterSlots      int
	meterWait       time.Duration
}

func (d *rpcDefenceOptions) addFlags(f *pflag.FlagSet) {
	f.Float64Var(&d.connectionRate, "rpc-connection-rate", httpd.DefaultConnectionRate,
		"new RPC connections per second one address group (public IPv4 /24, IPv6 /64, private address) may open (0: no limit)")
	f.IntVar(&d.connectionBurst, "rpc-connection-burst", httpd.DefaultConnectionBurst,
		"new RPC connections one address group may open at once")
	f.Float64Var(&d.meterCapacity, "rpc-meter-capacity", httpd.DefaultCostRate(),
		"seconds of RPC serving per second shared evenly by the active address groups before their requests are metered (0: no metering; the default is half the processors)")
	f.DurationVar(&d.meterBurst, "rpc-meter-burst", httpd.DefaultCostBurst,
		"how long one address group may use the whole --rpc-meter-capacity before it is metered")
	f.IntVar(&d.meterSlots, "rpc-meter-slots", httpd.DefaultMeteredSlots(),
		"RPC requests of address groups over budget that run at once (one group at most half)")
	f.DurationVar(&d.meterWait, "rpc-meter-wait", httpd.DefaultMeteredWait,
		"how long a metered RPC request may wait for a slot before it is answered BUSY")
}

// apply sets the defences of an RPC listener.
func (d *rpcDefenceOptions) apply(c *httpd.Config) error {
	switch {
	case d.connectionRate < 0 || d.meterCapacity < 0:
		return errors.New("--rpc-connection-rate and --rpc-meter-capacity may not be negative")
	case d.connectionBurst < 1 || d.meterSlots < 1:
		return errors.New("--rpc-connection-burst and --rpc-meter-slots must be at least 1")
	case d.meterBurst <= 0 || d.meterWait <= 0:
		return errors.New("--rpc-meter-burst and --rpc-meter-wait must be positive")
	}
	c.ConnectionRate, c.ConnectionBurst = d.connectionRate, d.connectionBurst
	if d.connectionRate == 0 {
		c.ConnectionRate = -1 // httpd: none
	}
	c.CostRate, c.CostBurst, c.MeteredSlots, c.MeteredWait = d.meterCapacity, d.meterBurst, d.meterSlots, d.meterWait
	if d.meterCapacity == 0 {
		c.CostRate = -1
	}
	return nil
}

// rpcDefenceCounts reads the RPC defences' counts for the metrics.
func rpcDefenceCounts(srv *rpc.Server) func() metrics.RPCDefenceCounts {
	return func() metrics.RPCDefenceCounts {
		st := srv.GuardStats()
		return metrics.RPCDefenceCounts{Open: st.Open,
			RefusedPerIP: st.RefusedPerIP, RefusedTotal: st.RefusedTotal, RefusedRate: st.RefusedRate,
			EvictedIdle: st.EvictedIdle, EvictedBusy: st.EvictedBusy,
			MeteredWaits: st.MeteredWaits, MeteredBusy: st.MeteredBusy,
			ProbationStarted: st.ProbationStarted, ProbationAdmitted: st.ProbationAdmitted,
			ProbationExpired: st.ProbationExpired, ProbationBumped: st.ProbationBumped}
	}
}
