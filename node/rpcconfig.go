package node

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/metrics"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/rpc"
)

// metricsAddr is the metrics listener's address, "" when
// --metrics-bind-port is not given. A non-loopback IP needs
// --confirm-external-bind, as the RPC's does: the metrics tell an
// onlooker the node's peers, pool and load.
func (c *Config) metricsAddr() (string, error) {
	if c.MetricsBindPort == 0 {
		return "", nil
	}
	if err := c.checkBindIP(c.MetricsBindIP, "--metrics-bind-ip"); err != nil {
		return "", err
	}
	if c.MetricsBindPort == c.RPC.BindPort || c.MetricsBindPort == c.RPC.RestrictedBindPort {
		return "", fmt.Errorf("--metrics-bind-port %d is also an RPC port", c.MetricsBindPort)
	}
	return net.JoinHostPort(c.MetricsBindIP, strconv.Itoa(int(c.MetricsBindPort))), nil
}

// miningAddress checks --start-mining and --mining-interval: nil when not
// mining; an error naming the problem for another network than regtest, an
// address that does not parse, or one of another network.
func (c *Config) miningAddress() (*address.Address, error) {
	if c.StartMining == "" {
		return nil, nil
	}
	if c.Network != params.Regtest {
		return nil, fmt.Errorf("--start-mining needs --regtest: gonero mines regtest chains only (its light-mode RandomX is far too slow for a public network)")
	}
	if c.MiningInterval < 0 {
		return nil, fmt.Errorf("--mining-interval %v is negative", c.MiningInterval)
	}
	a, err := address.ParseFor(c.StartMining, c.Network)
	if err != nil {
		return nil, fmt.Errorf("--start-mining %q: %w", c.StartMining, err)
	}
	return &a, nil
}

// rpcConfigs turns the RPC settings into listener configurations, with
// the network's default port when none is given.
func (c *Config) rpcConfigs() (main httpd.Config, restricted *httpd.Config, err error) {
	o := &c.RPC
	if err := c.checkBindIP(o.BindIP, "--rpc-bind-ip"); err != nil {
		return main, nil, err
	}
	main.Restricted = o.Restricted
	// monerod refuses per-IP limits above the total, and so do we; 0 would
	// mean "default" to httpd, so it is refused too (monerod's size_t
	// flags make 0 refuse every connection, which is of no use).
	switch {
	case o.MaxConnections < 1 || o.MaxConnectionsPerPublicIP < 1 || o.MaxConnectionsPerPrivateIP < 1:
		return main, nil, errors.New("--rpc-max-connections and the per-IP limits must be at least 1")
	case o.MaxConnectionsPerPublicIP > o.MaxConnections:
		return main, nil, errors.New("--rpc-max-connections-per-public-ip is bigger than --rpc-max-connections")
	case o.MaxConnectionsPerPrivateIP > o.MaxConnections:
		return main, nil, errors.New("--rpc-max-connections-per-private-ip is bigger than --rpc-max-connections")
	case o.ResponseSoftLimit < 1:
		return main, nil, errors.New("--rpc-response-soft-limit must be at least 1")
	}
	main.MaxConnections = o.MaxConnections
	main.MaxConnectionsPerPublicIP = o.MaxConnectionsPerPublicIP
	main.MaxConnectionsPerPrivateIP = o.MaxConnectionsPerPrivateIP
	main.ResponseSoftLimit = o.ResponseSoftLimit
	if err := o.applyDefences(&main); err != nil {
		return main, nil, err
	}
	port := o.BindPort
	if port == 0 {
		port = c.Network.RPCPort()
	}
	main.Addr = net.JoinHostPort(o.BindIP, strconv.Itoa(int(port)))
	if o.Login != nil {
		l := *o.Login
		main.Login = &l
	}
	main.CORSOrigins = append(main.CORSOrigins, o.CORSOrigins...)
	if o.RestrictedBindPort != 0 {
		if err := c.checkBindIP(o.RestrictedBindIP, "--rpc-restricted-bind-ip"); err != nil {
			return main, nil, err
		}
		r := main
		r.Restricted = true
		r.Addr = net.JoinHostPort(o.RestrictedBindIP, strconv.Itoa(int(o.RestrictedBindPort)))
		restricted = &r
		if o.RestrictedBindPort == o.BindPort {
			return main, nil, fmt.Errorf("--rpc-restricted-bind-port %d is also the main RPC port", o.RestrictedBindPort)
		}
	}
	if err := applyRPCAddr(o, &main, restricted, c.ConfirmExternalBind); err != nil {
		return main, nil, err
	}
	return main, restricted, nil
}

// checkBindIP refuses a non-loopback address without --confirm-external-bind, as monerod does.
func (c *Config) checkBindIP(ip, flag string) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return fmt.Errorf("%s %q is not an IP address", flag, ip)
	}
	if !addr.IsLoopback() && !c.ConfirmExternalBind {
		return fmt.Errorf("%s %s is not a loopback address; add --confirm-external-bind to serve RPC on it", flag, ip)
	}
	return nil
}

// applyDefences sets the defences of an RPC listener.
func (d *RPCConfig) applyDefences(c *httpd.Config) error {
	switch {
	case d.ConnectionRate < 0 || d.MeterCapacity < 0:
		return errors.New("--rpc-connection-rate and --rpc-meter-capacity may not be negative")
	case d.ConnectionBurst < 1 || d.MeterSlots < 1:
		return errors.New("--rpc-connection-burst and --rpc-meter-slots must be at least 1")
	case d.MeterBurst <= 0 || d.MeterWait <= 0:
		return errors.New("--rpc-meter-burst and --rpc-meter-wait must be positive")
	}
	c.ConnectionRate, c.ConnectionBurst = d.ConnectionRate, d.ConnectionBurst
	if d.ConnectionRate == 0 {
		c.ConnectionRate = -1 // httpd: none
	}
	c.CostRate, c.CostBurst, c.MeteredSlots, c.MeteredWait = d.MeterCapacity, d.MeterBurst, d.MeterSlots, d.MeterWait
	if d.MeterCapacity == 0 {
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
