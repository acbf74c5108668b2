package node

import (
	"log/slog"
	"testing"

	"github.com/gonero/gonero/p2p"
	"github.com/gonero/gonero/params"
)

// The P2P limit flags reach the P2P node: the defaults as monerod's, a
// changed rate and budgets as given, nonsense refused.
func TestP2PLimitFlagsReachNode(t *testing.T) {
	conf := func(edit func(*P2PConfig)) (p2p.Config, error) {
		o := DefaultConfig().P2P
		if edit != nil {
			edit(&o)
		}
		return o.p2pConfig(params.Regtest, t.TempDir(), slog.Default())
	}
	c, err := conf(nil)
	if err != nil || c.LimitRateUp != p2p.DefaultLimitRateUp || c.LimitRateDown != p2p.DefaultLimitRateDown ||
		c.LevinInBudget != p2p.DefaultLevinInBudget || c.SendBudget != p2p.DefaultSendBudget {
		t.Fatalf("defaults: up %d down %d budgets %d %d, %v", c.LimitRateUp, c.LimitRateDown, c.LevinInBudget, c.SendBudget, err)
	}
	c, err = conf(func(o *P2PConfig) {
		o.LimitRate, o.LimitRateDown, o.LevinInBudget, o.SendBudget = 500, 300, 1<<30, 1<<20
	})
	if err != nil || c.LimitRateUp != 500 || c.LimitRateDown != 300 || c.LevinInBudget != 1<<30 || c.SendBudget != 1<<20 {
		t.Fatalf("set: up %d down %d budgets %d %d, %v", c.LimitRateUp, c.LimitRateDown, c.LevinInBudget, c.SendBudget, err)
	}
	for name, bad := range map[string]func(*P2PConfig){
		"--limit-rate-up 0":        func(o *P2PConfig) { o.LimitRateUp = 0 },
		"--limit-rate-down -2":     func(o *P2PConfig) { o.LimitRateDown = -2 },
		"--p2p-levin-in-budget -1": func(o *P2PConfig) { o.LevinInBudget = -1 },
		"--p2p-send-budget -5":     func(o *P2PConfig) { o.SendBudget = -5 },
	} {
		if _, err := conf(bad); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}
