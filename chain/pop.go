package chain

import "github.com/gonero/gonero/chaindb"

// PopBlocks removes up to n blocks off the top of the main chain, never the
// genesis block (monerod's Blockchain::pop_blocks, behind /pop_blocks), in
// one store transaction, and returns how many it removed. The popped blocks
// are not kept as alternative blocks (monerod drops them); the
// main-chain-change listeners get them, so the pool takes their
// transactions back.
func (c *Chain) PopBlocks(n uint64) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n = min(n, c.main.height-1)
	if n == 0 {
		return 0, nil
	}
	var popped []chaindb.BlockRecord
	err := c.store.Update(func(w *chaindb.Writer) error {
		popped = popped[:0]
		for range n {
			rec, err := w.PopTop()
			if err != nil {
				return err
			}
			popped = append(popped, rec)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	// The windows (difficulty, weights, timestamps) are read again from the
	// store: an operator command, rare enough not to deserve an undo path.
	if err := c.load(); err != nil {
		return n, err
	}
	c.notify(MainChainChange{Popped: popped})
	c.cfg.Logger.Info("popped blocks off the main chain", "count", n, "height", c.main.height, "top", c.main.top.Hash)
	return n, nil
}
