package node

import (
	"log/slog"

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
