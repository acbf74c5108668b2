package node

import (
	"testing"
	"time"

	"github.com/gonero/gonero/httpd"
)

// TestRPCDefenceFlags: the defaults reach httpd as they are, 0 turns a
// defence off, nonsense is refused.
func TestRPCDefenceFlags(t *testing.T) {
	parse := func(edit func(*RPCConfig)) (httpd.Config, error) {
		d := DefaultConfig().RPC
		if edit != nil {
			edit(&d)
		}
		var c httpd.Config
		return c, d.applyDefences(&c)
	}
	c, err := parse(nil)
	if err != nil || c.ConnectionRate != httpd.DefaultConnectionRate || c.ConnectionBurst != httpd.DefaultConnectionBurst ||
		c.CostRate != httpd.DefaultCostRate() || c.MeteredSlots != httpd.DefaultMeteredSlots() ||
		c.CostBurst != httpd.DefaultCostBurst || c.MeteredWait != httpd.DefaultMeteredWait {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = parse(func(d *RPCConfig) { d.ConnectionRate, d.MeterCapacity = 0, 0 })
	if err != nil || c.ConnectionRate >= 0 || c.CostRate >= 0 {
		t.Fatalf("0 must turn the defences off (httpd: negative): %+v %v", c, err)
	}
	for name, bad := range map[string]func(*RPCConfig){
		"--rpc-connection-rate -1":  func(d *RPCConfig) { d.ConnectionRate = -1 },
		"--rpc-meter-capacity -0.5": func(d *RPCConfig) { d.MeterCapacity = -0.5 },
		"--rpc-connection-burst 0":  func(d *RPCConfig) { d.ConnectionBurst = 0 },
		"--rpc-meter-slots 0":       func(d *RPCConfig) { d.MeterSlots = 0 },
		"--rpc-meter-wait 0s":       func(d *RPCConfig) { d.MeterWait = 0 },
		"--rpc-meter-burst -1s":     func(d *RPCConfig) { d.MeterBurst = -time.Second },
	} {
		if _, err := parse(bad); err == nil {
			t.Errorf("%v accepted", name)
		}
	}
}

// TestRPCDefenceFlagsReachListeners: both RPC listeners get the defences.
func TestRPCDefenceFlagsReachListeners(t *testing.T) {
	o := DefaultConfig()
	o.RPC.BindPort, o.RPC.RestrictedBindPort, o.RPC.ConnectionRate, o.RPC.MeterSlots = 18081, 18089, 5, 3
	main, restricted, err := o.rpcConfigs()
	if err != nil || restricted == nil {
		t.Fatalf("%v %v", restricted, err)
	}
	for _, c := range []httpd.Config{main, *restricted} {
		if c.ConnectionRate != 5 || c.MeteredSlots != 3 || c.CostRate != httpd.DefaultCostRate() {
			t.Errorf("listener %s: %+v", c.Addr, c)
		}
	}
	if _, _, err := func() (httpd.Config, *httpd.Config, error) {
		o := DefaultConfig()
		o.RPC.MeterSlots = 0
		return o.rpcConfigs()
	}(); err == nil {
		t.Error("--rpc-meter-slots 0 accepted")
	}
}

// TestMemoryBudgetReachesListeners: --memory-budget builds one budget
// whose RPC account both listeners share, with the per-group share; a
// negative budget is refused.
func TestMemoryBudgetReachesListeners(t *testing.T) {
	o := DefaultConfig()
	o.DataDir = t.TempDir()
	o.RPC.BindPort, o.RPC.RestrictedBindPort = 18081, 18089
	o.MemoryBudget = 64 << 20
	n, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if n.main.Memory == nil || n.restrict == nil || n.restrict.Memory != n.main.Memory || n.RPCMemory() != n.main.Memory {
		t.Fatal("the listeners do not share the node's RPC account")
	}
	if st := n.MemoryBudget().Stats(); st.Total != 64<<20 {
		t.Fatalf("budget total %d, want %d", st.Total, 64<<20)
	}
	if st := n.RPCMemory().Stats(); st.Total != (64<<20)/rpcShareDiv/rpcClientShare || st.Limit != (64<<20)/rpcShareDiv {
		t.Fatalf("per-group share %d, RPC part %d", st.Total, st.Limit)
	}
	if parts := n.memoryParts(); len(parts) != 2 || parts[1].Part != "rpc" {
		t.Fatalf("metrics parts %+v", parts)
	}
	o.MemoryBudget = -1
	if _, err := New(o); err == nil {
		t.Error("--memory-budget -1 accepted")
	}
}
