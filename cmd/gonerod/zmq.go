package main

import (
	"errors"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/txpool"
	"github.com/gonero/gonero/zmqpub"
)

// zmqOptions are monerod's ZMQ flags (src/daemon/command_line_args.h).
type zmqOptions struct {
	pub      []string
	disabled bool
	flags    *pflag.FlagSet
}

func (z *zmqOptions) addFlags(f *pflag.FlagSet) {
	z.flags = f
	f.StringArrayVar(&z.pub, "zmq-pub", nil, "publish chain, pool and miner-data events on this ZMQ endpoint: tcp://IP:PORT or ipc://PATH (repeatable)")
	f.BoolVar(&z.disabled, "no-zmq", false, "disable ZMQ (--zmq-pub is then ignored, as monerod ignores it)")
	// gonerod has no ZMQ RPC server: these are declared only to refuse
	// them with a clear message instead of an unknown-flag error or, worse,
	// a silent acceptance as if a server listened.
	f.String("zmq-rpc-bind-ip", "127.0.0.1", "refused: gonerod has no ZMQ RPC server (use the HTTP RPC)")
	f.String("zmq-rpc-bind-port", "", "refused: gonerod has no ZMQ RPC server (use the HTTP RPC)")
}

// check refuses the ZMQ RPC flags before anything starts.
func (z *zmqOptions) check() error {
	if z.disabled {
		return nil
	}
	for _, name := range []string{"zmq-rpc-bind-ip", "zmq-rpc-bind-port"} {
		if z.flags != nil && z.flags.Changed(name) {
			return errors.New("--" + name + ": gonerod has no ZMQ RPC server (only the --zmq-pub publisher); use the HTTP RPC, or --no-zmq")
		}
	}
	return nil
}

// start starts the publisher when --zmq-pub is given (nil otherwise). It
// must be called after pool follows c: the publisher reads the pool after
// it took a new block's transactions out.
func (z *zmqOptions) start(c *chain.Chain, pool *txpool.Pool, log *slog.Logger) (*zmqpub.Publisher, error) {
	if z.disabled || len(z.pub) == 0 {
		return nil, nil
	}
	p, err := zmqpub.Listen(z.pub, log)
	if err != nil {
		return nil, err
	}
	p.Follow(c, pool)
	for _, a := range p.Addrs() {
		log.Info("ZMQ publisher listening", "addr", a.Network()+"://"+a.String())
	}
	return p, nil
}
