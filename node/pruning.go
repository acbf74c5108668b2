package node

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/pruning"
)

// pruningInterval is monerod's m_blockchain_pruning_interval: a pruned
// store's blocks that left the tip are pruned every 5 hours.
const pruningInterval = 5 * time.Hour

// start is core::init's pruning step: prune an unpruned store (or bring a
// pruned one up to date), then keep pruning until stop is called (stop
// returns once no pruning runs). A store that is pruned already is kept
// pruned even without --prune-blockchain, as monerod's LMDB does (its
// incremental pruning runs whenever a seed is set).
func startPruning(cfg *Config, db *chaindb.DB, log *slog.Logger) (stop func(), err error) {
	if cfg.PruneStripe > pruning.Stripes {
		return nil, errors.New("--prune-blockchain-stripe must be 1-8")
	}
	mode := chaindb.PruneUpdate
	if cfg.PruneBlockchain {
		mode = chaindb.PruneAll
		var seed uint32
		if err := db.View(func(r *chaindb.Reader) (err error) { seed, err = r.PruningSeed(); return }); err != nil {
			return nil, err
		}
		if seed != 0 {
			mode = chaindb.PruneUpdate
		} else {
			log.Info("pruning the blockchain; this may take a while")
		}
	}
	res, err := db.Prune(mode, cfg.PruneStripe)
	if err != nil {
		return nil, err
	}
	if res.Seed == 0 {
		return func() {}, nil
	}
	log.Info("blockchain pruned", "pruning_seed", res.Seed, "stripe", pruning.StripeOf(res.Seed), "txs", res.PrunedTxs, "bytes", res.Bytes)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(pruningInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if r, err := db.Prune(chaindb.PruneUpdate, 0); err != nil {
					log.Error("updating blockchain pruning", "err", err)
				} else if r.PrunedTxs > 0 {
					log.Info("blockchain pruning updated", "txs", r.PrunedTxs)
				}
			}
		}
	}()
	return func() { cancel(); <-done }, nil
}

// storePruner is prune_blockchain's view of the store.
type storePruner struct{ db *chaindb.DB }

func (s storePruner) Prune() (uint32, error) {
	res, err := s.db.Prune(chaindb.PruneAll, 0)
	return res.Seed, err
}

func (s storePruner) CheckPruning() (uint32, error) { return s.db.CheckPruning() }
