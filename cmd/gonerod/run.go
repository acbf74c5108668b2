package main

import (
	"errors"

	"github.com/gonero/gonero/node"
)

// runNode starts the node of the flags and runs it until SIGINT or
// SIGTERM (or /stop_daemon, or the RPC failing), then stops every part.
func runNode(o *options) error {
	ctx, stop := signalContext()
	defer stop()
	cfg, err := o.config()
	if err != nil {
		return err
	}
	if cfg.Logger, cfg.LogLevel, err = newLevelLogger(o.logLevel); err != nil {
		return err
	}
	if err := applyMemoryLimit(o.memoryLimit, cfg.MemoryBudget, cfg.Logger); err != nil {
		return err
	}
	n, err := node.New(cfg)
	if err != nil {
		return err
	}
	if err := n.Start(); err != nil {
		return err
	}
	var served error
	select {
	case <-n.Done():
		// The RPC failed, or /stop_daemon ended the node as SIGTERM does.
		if served = n.Err(); served == nil {
			cfg.Logger.Info("shutting down")
		}
	case <-ctx.Done():
		cfg.Logger.Info("shutting down")
	}
	return errors.Join(served, n.Close())
}
