package main

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/gonero/gonero/httpd"
)

// TestRPCDefenceFlags: the defaults reach httpd as they are, 0 turns a
// defence off, nonsense is refused.
func TestRPCDefenceFlags(t *testing.T) {
	parse := func(args ...string) (httpd.Config, error) {
		var d rpcDefenceOptions
		f := pflag.NewFlagSet("x", pflag.ContinueOnError)
		d.addFlags(f)
		if err := f.Parse(args); err != nil {
			t.Fatal(err)
		}
		var c httpd.Config
		return c, d.apply(&c)
	}
	c, err := parse()
	if err != nil || c.ConnectionRate != httpd.DefaultConnectionRate || c.ConnectionBurst != httpd.DefaultConnectionBurst ||
		c.CostRate != httpd.DefaultCostRate() || c.MeteredSlots != httpd.DefaultMeteredSlots() ||
		c.CostBurst != httpd.DefaultCostBurst || c.MeteredWait != httpd.DefaultMeteredWait {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = parse("--rpc-connection-rate", "0", "--rpc-meter-capacity", "0")
	if err != nil || c.ConnectionRate >= 0 || c.CostRate >= 0 {
		t.Fatalf("0 must turn the defences off (httpd: negative): %+v %v", c, err)
	}
	for _, bad := range [][]string{
		{"--rpc-connection-rate", "-1"}, {"--rpc-meter-capacity", "-0.5"}, {"--rpc-connection-burst", "0"},
		{"--rpc-meter-slots", "0"}, {"--rpc-meter-wait", "0s"}, {"--rpc-meter-burst", "-1s"},
	} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestRPCDefenceFlagsReachListeners: both RPC listeners get the defences.
func TestRPCDefenceFlagsReachListeners(t *testing.T) {
	o := &options{}
	cmd := newRootCommandFor(o)
	if err := cmd.ParseFlags([]string{"--rpc-bind-port", "18081", "--rpc-restricted-bind-port", "18089",
		"--rpc-connection-rate", "5", "--rpc-meter-slots", "3"}); err != nil {
		t.Fatal(err)
	}
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
		o := &options{}
		cmd := newRootCommandFor(o)
		if err := cmd.ParseFlags([]string{"--rpc-meter-slots", "0"}); err != nil {
			t.Fatal(err)
		}
		return o.rpcConfigs()
	}(); err == nil {
		t.Error("--rpc-meter-slots 0 accepted")
	}
}
