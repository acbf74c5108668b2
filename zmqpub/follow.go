package zmqpub

import (
	"slices"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/txpool"
)

// Follow publishes c's main-chain changes and pool's new transactions at
// the moments monerod does. Call it after pool follows c (so the pool has
// taken a new block's transactions out when the miner data is gathered,
// as monerod's has). Nothing is gathered while no subscriber wants it.
func (p *Publisher) Follow(c *chain.Chain, pool *txpool.Pool) {
	c.OnMainChainChange(func(ch chain.MainChainChange) { p.chainChanged(c, pool, ch) })
	publish := func(e *txpool.Entry) {
		p.TxpoolAdd([]TxEvent{{Tx: e.Tx, ID: e.ID, BlobSize: uint64(len(e.Blob)), Weight: e.Weight, Fee: e.Fee}})
	}
	pool.OnAdd(func(e *txpool.Entry) {
		if publishesTxpoolAdd(e) {
			publish(e)
		}
	})
	pool.OnBroadcast(publish)
}

// publishesTxpoolAdd is core::add_new_tx's condition in monerod 0.18.5
// (matches_category(tvc.m_relay, relay_category::legacy)) for a
// transaction entering the pool: one sent with do_not_relay
// (relay_method::none) or arriving fluffed is published at once; one sent
// to /sendrawtransaction to be relayed (relay_method::local) or arriving
// on a Dandelion++ stem is published when it becomes public instead (the
// pool's OnBroadcast: core::on_transactions_relayed publishes what
// set_relayed reports just broadcasted), and so is one sent with
// do_not_relay once relay_tx releases it: published twice, surprising but
// so. Transactions a popped block returns to the pool are never published
// (Blockchain::pop_block_from_blockchain adds them to the pool directly).
func publishesTxpoolAdd(e *txpool.Entry) bool {
	switch e.Source {
	case txpool.SourceRPC:
		return e.DoNotRelay
	case txpool.SourceP2P:
		return !e.ArrivedOnStem
	}
	return false
}

// chainChanged is what Blockchain::handle_block_to_main_chain and
// switch_to_alternative_blockchain notify. For each block that joins the
// main chain: txpool_add for its transactions that did not come from the
// pool (monerod 0.18.5 publishes those, in one message, before the
// block's other notifications), the miner data on top of it, then the
// block. After a
// reorganisation monerod then sends, surprisingly, the miner data of the
// new top once more and every block of the new chain a second time (its
// handle_block_to_main_chain ignores the notify=false it is given during
// the switch). Popping blocks alone (pop_blocks) sends nothing.
func (p *Publisher) chainChanged(c *chain.Chain, pool *txpool.Pool, ch chain.MainChainChange) {
	if len(ch.Added) == 0 || !(p.wants(bitFullChain|bitMinimalChain|bitFullTxpool|bitMinimalTxpool) || p.WantsMinerData()) {
		return
	}
	var final *MinerData
	var poolBacklog []BacklogEntry // uncapped, for the intermediate miner data
	if p.WantsMinerData() {
		final = finalMinerData(c, pool)
		if len(ch.Added) > 1 {
			poolBacklog = visibleBacklog(pool)
		}
	}
	notFromPool := pool.NotFromPool()
	for i := range ch.Added {
		if i < len(notFromPool) && len(notFromPool[i]) > 0 {
			events := make([]TxEvent, len(notFromPool[i]))
			for j, tx := range notFromPool[i] {
				blob := tx.Serialize()
				events[j] = TxEvent{Tx: tx, ID: tx.ID(), BlobSize: uint64(len(blob)), Weight: tx.Weight(len(blob)), Fee: consensus.TxFee(tx)}
			}
			p.TxpoolAdd(events)
		}
		if final != nil {
			if i == len(ch.Added)-1 {
				p.MinerData(final)
			} else {
				p.MinerData(intermediateMinerData(c, ch.Added, i, final, poolBacklog))
			}
		}
		p.publishBlock(&ch.Added[i])
	}
	if len(ch.Popped) == 0 {
		return
	}
	if final != nil {
		repeat := *final
		repeat.AlreadyGeneratedCoins = altGeneratedCoins(c, ch.Added, final.AlreadyGeneratedCoins)
		p.MinerData(&repeat)
	}
	for i := range ch.Added {
		p.publishBlock(&ch.Added[i])
	}
}

// altGeneratedCoins is the already_generated_coins switch_to_alternative_
// blockchain sends: that of the alternative chain's last block as
// handle_alternative_block counted it, which adds each block's miner
// transaction outputs (base reward plus fees: surprising, the main chain
// adds the base reward only) to the coins generated below the split. If the
// store cannot be read, the main chain's figure stands.
func altGeneratedCoins(c *chain.Chain, added []chain.AddedBlock, mainFigure uint64) uint64 {
	split := added[0].Meta.Height
	if split == 0 {
		return mainFigure
	}
	var gen uint64
	if err := c.Store().View(func(r *chaindb.Reader) error {
		m, err := r.MetaByHeight(split - 1)
		gen = m.GeneratedCoins
		return err
	}); err != nil {
		return mainFigure
	}
	for _, b := range added {
		out, overflow := b.Block.MinerTx.OutputSum()
		if overflow || out >= consensus.MoneySupply-gen {
			gen = consensus.MoneySupply
			continue
		}
		gen += out
	}
	return gen
}

func (p *Publisher) publishBlock(b *chain.AddedBlock) {
	p.ChainMain(b.Meta.Height, []*cryptonote.Block{b.Block}, []cryptonote.Hash{b.Meta.Hash})
}

// finalMinerData is send_miner_notifications on the current top.
func finalMinerData(c *chain.Chain, pool *txpool.Pool) *MinerData {
	next := c.NextBlockFacts()
	net := c.Network()
	m := &MinerData{
		MajorVersion: net.VersionAt(next.Height), Height: next.Height, PrevID: next.Top.Hash,
		DifficultyLo: next.Difficulty.Lo, DifficultyHi: next.Difficulty.Hi, MedianWeight: next.EffectiveMedian,
		AlreadyGeneratedCoins: next.Top.GeneratedCoins, TxBacklog: backlog(pool, next.EffectiveMedian),
	}
	if net.VersionAt(next.Height-1) >= consensus.RandomXVersion {
		m.SeedHash = c.HashAt(consensus.SeedHeight(next.Height))
	}
	return m
}

// intermediateMinerData is the miner data monerod sends after block i of a
// reorganisation's new chain, before the next is added. The difficulty
// is the next block's own, the seed is read from the new chain; the pool
// then still held the later blocks' transactions (monerod pools the
// transactions of alternative blocks). Difference: the median weight is
// the new top's, not recomputed at block i (equal unless block weights
// near the reorganisation move the 100-block median). poolBacklog is the
// pool's backlog without the cap, which applies to it and the later
// blocks' transactions together.
func intermediateMinerData(c *chain.Chain, added []chain.AddedBlock, i int, final *MinerData, poolBacklog []BacklogEntry) *MinerData {
	b := added[i].Meta
	net := c.Network()
	height := b.Height + 1
	d := added[i+1].Meta.Difficulty
	m := &MinerData{
		MajorVersion: net.VersionAt(height), Height: height, PrevID: b.Hash,
		DifficultyLo: d.Lo, DifficultyHi: d.Hi, MedianWeight: final.MedianWeight,
		AlreadyGeneratedCoins: b.GeneratedCoins,
	}
	if net.VersionAt(height-1) >= consensus.RandomXVersion {
		m.SeedHash = c.HashAt(consensus.SeedHeight(height))
	}
	m.TxBacklog = slices.Clone(poolBacklog)
	for _, later := range added[i+1:] {
		for _, tx := range later.Txs {
			blob := tx.Serialize()
			m.TxBacklog = append(m.TxBacklog, BacklogEntry{ID: tx.ID(), Weight: tx.Weight(len(blob)), Fee: consensus.TxFee(tx)})
		}
	}
	slices.SortFunc(m.TxBacklog, func(a, b BacklogEntry) int { return cryptonote.CompareHash32(a.ID, b.ID) })
	m.TxBacklog = capBacklog(m.TxBacklog, m.MedianWeight)
	return m
}

// backlog is tx_memory_pool::get_block_template_backlog: the transactions
// relayed to everyone (not kept back by do_not_relay, not in their stem
// phase), in the order of monerod's pool table, up to 112.5 % of the
// median weight (capBacklog).
func backlog(pool *txpool.Pool, median uint64) []BacklogEntry {
	return capBacklog(visibleBacklog(pool), median)
}

// visibleBacklog is backlog without the cap.
func visibleBacklog(pool *txpool.Pool) []BacklogEntry {
	var out []BacklogEntry
	for _, e := range pool.Snapshot() {
		if !e.DoNotRelay && !e.Stem {
			out = append(out, BacklogEntry{ID: e.ID, Weight: e.Weight, Fee: e.Fee})
		}
	}
	slices.SortFunc(out, func(a, b BacklogEntry) int { return cryptonote.CompareHash32(a.ID, b.ID) })
	return out
}

// capBacklog is txpool.CapTemplateBacklog for the miner data's entries.
func capBacklog(entries []BacklogEntry, median uint64) []BacklogEntry {
	return txpool.CapTemplateBacklog(entries, median, func(e BacklogEntry) (uint64, uint64) { return e.Weight, e.Fee })
}
