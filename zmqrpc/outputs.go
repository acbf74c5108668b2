package zmqrpc

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/zmqpub"
)

func (s *Server) getTransactions(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	ids, err := getHashList(o, "tx_hashes")
	if err != nil {
		return "", err
	}
	if s.cfg.Restricted && len(ids) > restrictedMaxTxs {
		return "Too many transactions requested in restricted mode", nil
	}
	type found struct {
		id     cryptonote.Hash
		tx     *cryptonote.Transaction
		height uint64
		inPool bool
	}
	var txs []found
	var missed []cryptonote.Hash
	err = s.chain.View(func(r *chaindb.Reader) error {
		txs, missed = txs[:0], missed[:0]
		for _, id := range ids {
			blob, err := r.TxBlob(id)
			if errors.Is(err, chaindb.ErrNotFound) {
				// Miner transactions live in their blocks.
				h, ok, err := minerTxHeight(r, id)
				if err != nil {
					return err
				}
				if !ok {
					missed = append(missed, id)
					continue
				}
				bb, err := r.BlockBlob(h)
				if err != nil {
					return err
				}
				b, err := cryptonote.ParseBlock(bb)
				if err != nil {
					return err
				}
				txs = append(txs, found{id: id, tx: &b.MinerTx, height: h})
				continue
			} else if err != nil {
				return err
			}
			tx, err := cryptonote.ParseTransaction(blob)
			if err != nil {
				return err
			}
			loc, err := r.TxLocation(id)
			if err != nil {
				return err
			}
			txs = append(txs, found{id: id, tx: tx, height: loc.Height})
		}
		return nil
	})
	if err != nil {
		return "core::get_transactions() returned false (exception caught there)", nil
	}
	// Those missing from the chain are looked for among the pool's public
	// transactions (get_pool_transactions without sensitive ones).
	if len(missed) > 0 && s.pool != nil {
		left := missed[:0]
		for _, id := range missed {
			if e, ok := s.pool.Public(id); ok {
				txs = append(txs, found{id: id, tx: e.Tx, height: math.MaxUint64, inPool: true})
				continue
			}
			left = append(left, id)
		}
		missed = left
	}
	// res.txs is an unordered_map: monerod writes it in its hash table's
	// order; here in the order asked (a JSON object's order carries no
	// meaning), each id once.
	w.key("txs")
	w.b = append(w.b, '{')
	seen := make(map[cryptonote.Hash]bool, len(txs))
	first := true
	for _, f := range txs {
		if seen[f.id] {
			continue
		}
		seen[f.id] = true
		if !first {
			w.b = append(w.b, ',')
		}
		first = false
		w.b = append(w.b, '"')
		w.b = hex.AppendEncode(w.b, f.id[:])
		w.b = append(w.b, `":{"height":`...)
		w.b = strconv.AppendUint(w.b, f.height, 10)
		w.b = append(w.b, `,"in_pool":`...)
		w.b = strconv.AppendBool(w.b, f.inPool)
		w.b = append(w.b, `,"transaction":`...)
		w.b = zmqpub.AppendTxJSON(w.b, f.tx, false)
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, '}')
	w.key("missed_hashes")
	w.b = append(w.b, '[')
	for i, id := range missed {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, '"')
		w.b = hex.AppendEncode(w.b, id[:])
		w.b = append(w.b, '"')
	}
	w.b = append(w.b, ']')
	return "", nil
}

// minerTxHeight finds the block of a main-chain miner transaction: a
// version-1 one through the store's index of them, a version-2 one through
// its first output (whose entry names its block).
func minerTxHeight(r *chaindb.Reader, id cryptonote.Hash) (uint64, bool, error) {
	h, err := r.MinerTxHeight(id)
	if err == nil {
		return h, true, nil
	} else if !errors.Is(err, chaindb.ErrNotFound) {
		return 0, false, err
	}
	idx, err := r.TxOutputIndexes(id)
	if errors.Is(err, chaindb.ErrNotFound) || (err == nil && len(idx) == 0) {
		return 0, false, nil
	} else if err != nil {
		return 0, false, err
	}
	out, err := r.Output(0, idx[0])
	if err != nil {
		return 0, false, err
	}
	if out.TxHash != id {
		return 0, false, nil
	}
	m, err := r.MetaByHeight(out.Height)
	if err != nil {
		return 0, false, err
	}
	return out.Height, m.MinerTxHash == id, nil
}

func (s *Server) getOutputKeys(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	els, err := getArray(o, "outputs")
	if err != nil {
		return "", err
	}
	type ref struct{ amount, index uint64 }
	refs := make([]ref, len(els))
	for i, e := range els {
		if e.kind() != kindObject {
			return "", wrongType("json object")
		}
		eo := parseObject(e)
		if refs[i].amount, err = getUint64(eo, "amount"); err != nil {
			return "", err
		}
		if refs[i].index, err = getUint64(eo, "index"); err != nil {
			return "", err
		}
	}
	if s.cfg.Restricted && len(refs) > restrictedMaxFakeOuts {
		return "Too many outs requested", nil
	}
	type key struct {
		key, mask cryptonote.Key
		unlocked  bool
	}
	keys := make([]key, len(refs))
	var missing *ref
	err = s.chain.View(func(r *chaindb.Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		var hf uint8
		if height > 0 {
			hf = s.chain.Network().VersionAt(height - 1)
		}
		var now uint64
		haveNow := false
		for i, rf := range refs {
			out, err := r.Output(rf.amount, rf.index)
			if errors.Is(err, chaindb.ErrNotFound) {
				missing = &refs[i]
				return nil
			} else if err != nil {
				return err
			}
			k := &keys[i]
			k.key = out.Key
			if out.Amount == 0 {
				k.mask = out.Commitment
			} else {
				k.mask = cryptonote.Key(crypto.ZeroCommit(out.Amount))
			}
			if out.UnlockTime >= consensus.MaxBlockNumber && !haveNow {
				next := s.chain.NextBlockFacts()
				now, haveNow = next.AdjustedTime(time.Now()), true
				if hf < consensus.VersionDeterministicUT {
					now = uint64(time.Now().Unix())
				}
			}
			k.unlocked = consensus.IsSpendTimeUnlocked(out.UnlockTime, height, now, hf)
		}
		return nil
	})
	if err != nil {
		return errStore, nil
	}
	if missing != nil {
		// BlockchainLMDB::get_output_key's OUTPUT_DNE, caught by the handler.
		return fmt.Sprintf("Attempting to get output pubkey by index, but key does not exist: amount %d, index %d",
			missing.amount, missing.index), nil
	}
	w.key("keys")
	w.b = append(w.b, '[')
	for i := range keys {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, `{"key":"`...)
		w.b = hex.AppendEncode(w.b, keys[i].key[:])
		w.b = append(w.b, `","mask":"`...)
		w.b = hex.AppendEncode(w.b, keys[i].mask[:])
		w.b = append(w.b, `","unlocked":`...)
		w.b = strconv.AppendBool(w.b, keys[i].unlocked)
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, ']')
	return "", nil
}

var errNoDistribution = errors.New("no output distribution for that range")

// rctStartHeight is where the amount-0 distribution starts: the first
// height of hard fork 4, 0 on regtest.
func rctStartHeight(n params.Network) uint64 {
	if n == params.Regtest {
		return 0
	}
	for _, f := range n.HardForks() {
		if f.Version >= 4 {
			return f.Height
		}
	}
	return 0
}

// rctCache keeps the cumulative amount-0 output counts of heights 0..n-1
// that get_output_distribution last read, with the id of the block at its
// last height: wallets ask for the whole range again and again, and
// monerod caches it too. A reorganisation below that height shows as a
// different id there, and the cache is read again.
type rctCache struct {
	mu   sync.Mutex
	cum  []uint64
	last cryptonote.Hash
}

// counts returns the cumulative counts at heights start..to (a copy).
func (c *rctCache) counts(r *chaindb.Reader, start, to uint64) ([]uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := uint64(len(c.cum)); n > 0 {
		m, err := r.MetaByHeight(n - 1)
		if err != nil || m.Hash != c.last {
			c.cum = c.cum[:0]
		}
	}
	for h := uint64(len(c.cum)); h <= to; h++ {
		v, err := r.RctOutputsUpTo(h)
		if err != nil {
			c.cum = c.cum[:0]
			return nil, err
		}
		c.cum = append(c.cum, v)
	}
	if n := uint64(len(c.cum)); n > 0 {
		m, err := r.MetaByHeight(n - 1)
		if err != nil {
			c.cum = c.cum[:0]
			return nil, err
		}
		c.last = m.Hash
	}
	return append([]uint64(nil), c.cum[start:to+1]...), nil
}

type distribution struct {
	amount, start, base uint64
	data                []uint64
}

// outputDistribution is RpcHandler::get_output_distribution over
// Blockchain::get_output_distribution for one amount (to resolved).
// monerod's: for an amount other than 0 the first value counts every
// output below from and base stays 0; for amount 0 base is the count below
// the start and the first value leaves it out.
func (s *Server) outputDistribution(r *chaindb.Reader, amount, from, to, height uint64, cumulative bool) (*distribution, error) {
	var start uint64
	if amount == 0 {
		start = rctStartHeight(s.chain.Network())
	}
	if to > 0 && to < from {
		return nil, errNoDistribution
	}
	start = max(start, from)
	if height == 0 || start >= height || to >= height {
		return nil, errNoDistribution
	}
	var dist []uint64
	var base uint64
	if amount == 0 {
		if to < start {
			return nil, errNoDistribution
		}
		var err error
		if dist, err = s.rct.counts(r, start, to); err != nil {
			return nil, err
		}
		if start > 0 {
			var err error
			if base, err = r.RctOutputsUpTo(start - 1); err != nil {
				return nil, err
			}
		}
	} else {
		if from >= height {
			return nil, errNoDistribution
		}
		dist = make([]uint64, height-from)
		n, err := r.OutputCount(amount)
		if err != nil {
			return nil, err
		}
		for i := uint64(0); i < n; i++ {
			o, err := r.Output(amount, i)
			if err != nil {
				return nil, err
			}
			if o.Height >= from && o.Height < height {
				dist[o.Height-from]++
			} else if o.Height < from {
				dist[0]++
			}
		}
		for i := 1; i < len(dist); i++ {
			dist[i] += dist[i-1]
		}
	}
	if to > 0 && to >= from {
		offset := max(from, start)
		if offset <= to && to-offset+1 < uint64(len(dist)) {
			dist = dist[:to-offset+1]
		}
	}
	if !cumulative && len(dist) > 0 {
		for i := len(dist) - 1; i > 0; i-- {
			dist[i] -= dist[i-1]
		}
		dist[0] -= base
	}
	return &distribution{amount: amount, start: start, base: base, data: dist}, nil
}

func (s *Server) getOutputDistribution(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	els, err := getArray(o, "amounts")
	if err != nil {
		return "", err
	}
	amounts := make([]uint64, len(els))
	for i, e := range els {
		if amounts[i], err = toUint64(e); err != nil {
			return "", err
		}
	}
	from, err := getUint64(o, "from_height")
	if err != nil {
		return "", err
	}
	to, err := getUint64(o, "to_height")
	if err != nil {
		return "", err
	}
	cumulative, err := getBool(o, "cumulative")
	if err != nil {
		return "", err
	}
	if s.cfg.Restricted && (len(amounts) != 1 || amounts[0] != 0) {
		return "Restricted RPC can only get output distribution for rct outputs. Use your own node.", nil
	}
	// The one request light wallets repeat (amount 0, to the top) is
	// answered from its last rendering while the top block is the same.
	var key distKey
	single := len(amounts) == 1 && amounts[0] == 0
	if single {
		next := s.chain.NextBlockFacts()
		key = distKey{top: next.Top.Hash, height: next.Height, from: from, to: to, cumulative: cumulative}
		if text, ok := s.dist.get(key); ok {
			w.b = append(w.b, text...)
			return "", nil
		}
	}
	var ds []*distribution
	var viewed distKey
	err = s.chain.View(func(r *chaindb.Reader) error {
		ds = ds[:0]
		height, err := r.Height()
		if err != nil {
			return err
		}
		if single && height > 0 {
			m, err := r.MetaByHeight(height - 1)
			if err != nil {
				return err
			}
			viewed = distKey{top: m.Hash, height: height, from: from, to: to, cumulative: cumulative}
		}
		reqTo := to
		if reqTo == 0 {
			reqTo = height - 1 // wraps on an empty chain, as monerod's does
		}
		for _, a := range amounts {
			d, err := s.outputDistribution(r, a, from, reqTo, height, cumulative)
			if err != nil {
				return err
			}
			ds = append(ds, d)
		}
		return nil
	})
	if err != nil {
		return "Failed to get output distribution", nil
	}
	start := len(w.b)
	n := 0
	for _, d := range ds {
		n += 8*len(d.data) + 96
	}
	w.b = slices.Grow(w.b, n)
	w.key("status")
	w.b = append(w.b, `"OK"`...)
	w.key("distributions")
	w.b = append(w.b, '[')
	for i, d := range ds {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, `{"distribution":`...)
		w.b = appendUints(w.b, d.data)
		w.b = append(w.b, `,"amount":`...)
		w.b = strconv.AppendUint(w.b, d.amount, 10)
		w.b = append(w.b, `,"start_height":`...)
		w.b = strconv.AppendUint(w.b, d.start, 10)
		w.b = append(w.b, `,"base":`...)
		w.b = strconv.AppendUint(w.b, d.base, 10)
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, ']')
	// Kept only when the snapshot was the chain at the key's top (the
	// published top can be a block behind the store for a moment).
	if single && viewed == key {
		s.dist.put(key, w.b[start:])
	}
	return "", nil
}

// distKey is what a get_output_distribution answer for amount 0 depends
// on: the main chain (its top and height) and the request.
type distKey struct {
	top              cryptonote.Hash
	height, from, to uint64
	cumulative       bool
}

// distCache keeps the last amount-0 get_output_distribution answer (the
// members after rpc_version), by the chain and request it was for.
type distCache struct {
	mu   sync.Mutex
	key  distKey
	text []byte
}

func (c *distCache) get(k distKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.text == nil || c.key != k {
		return nil, false
	}
	return c.text, true
}

func (c *distCache) put(k distKey, text []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.text = k, append([]byte(nil), text...)
}
