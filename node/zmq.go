package node

import (
	"log/slog"

	"github.com/gonero/gonero/metrics"
	"github.com/gonero/gonero/zmqrpc"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/txpool"
	"github.com/gonero/gonero/zmqpub"
)

// startZMQ starts the publisher on endpoints (nil when there are none).
// It must be called after pool follows c: the publisher reads the pool
// after it took a new block's transactions out.
func startZMQ(endpoints []string, c *chain.Chain, pool *txpool.Pool, log *slog.Logger) (*zmqpub.Publisher, error) {
	if len(endpoints) == 0 {
		return nil, nil
	}
	p, err := zmqpub.Listen(endpoints, log)
	if err != nil {
		return nil, err
	}
	p.Follow(c, pool)
	for _, a := range p.Addrs() {
		log.Info("ZMQ publisher listening", "addr", a.Network()+"://"+a.String())
	}
	return p, nil
}

// startZMQRPC starts the ZMQ RPC server on the parts it reads and drives.
func (n *Node) startZMQRPC() error {
	s, err := zmqrpc.New(zmqrpc.Config{Addr: n.cfg.zmqRPCAddr(), Restricted: n.cfg.ZMQRPC.Restricted,
		Version: "gonero-" + Version, Log: n.log,
		// The HTTP RPC's per-address flags bound the ZMQ RPC too: one knob
		// for an operator whose light-wallet server on another host needs
		// more connections than monerod's defaults (docs/zmq.md).
		MaxConnsPerPublicHost:  n.cfg.RPC.MaxConnectionsPerPublicIP,
		MaxConnsPerPrivateHost: n.cfg.RPC.MaxConnectionsPerPrivateIP,
		// Its request and answer bytes are two parts of the node's one
		// budget (docs/public-node.md#memory-budget).
		Memory: n.memory},
		zmqrpc.Backend{Chain: zmqrpc.NewChainSource(n.store.chain), Pool: zmqrpc.NewPoolSource(n.pool),
			Submit: n.pool, Peers: n.peers, Miner: n.miner})
	if err != nil {
		return err
	}
	if err := s.Start(); err != nil {
		return err
	}
	n.zmqRPC = s
	n.log.Info("ZMQ RPC server listening", "addr", "tcp://"+s.Addr().String(), "restricted", n.cfg.ZMQRPC.Restricted)
	return nil
}

// zmqRPCCounts reads the ZMQ RPC's connection counts for the metrics (nil
// without a ZMQ RPC).
func zmqRPCCounts(s *zmqrpc.Server) func() metrics.ZMQRPCCounts {
	if s == nil {
		return nil
	}
	return func() metrics.ZMQRPCCounts {
		st := s.ConnStats()
		return metrics.ZMQRPCCounts{Open: st.Open, RefusedPerHost: st.RefusedPerHost, RefusedTotal: st.RefusedTotal, Evicted: st.Evicted}
	}
}
