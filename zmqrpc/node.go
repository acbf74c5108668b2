package zmqrpc

import (
	"cmp"
	"encoding/hex"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/txpool"
	"github.com/gonero/gonero/zmqpub"
)

// Miner is the node's mining loop (start_mining, stop_mining,
// mining_status). *miner.Miner implements it.
type Miner interface {
	Start(to address.Address, threads int, background, ignoreBattery bool) error
	Stop() error
	Status() miner.Status
}

var _ Miner = (*miner.Miner)(nil)

// Submitter takes a transaction for the pool (send_raw_tx_hex):
// *txpool.Pool implements it; a transaction added without DoNotRelay is
// relayed by the node's P2P layer, as for /sendrawtransaction.
type Submitter interface {
	Add(blob []byte, opts txpool.AddOptions) (*txpool.Entry, error)
}

func (s *Server) getBlockHash(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	height, err := getUint64(o, "height")
	if err != nil {
		return "", err
	}
	if s.chain.Height() <= height {
		return "height given is higher than current chain height", nil
	}
	m, ok := s.metaByHeight(height)
	if !ok {
		return "height given is higher than current chain height", nil
	}
	w.key("hash")
	w.b = append(w.b, '"')
	w.b = hex.AppendEncode(w.b, m.Hash[:])
	w.b = append(w.b, '"')
	return "", nil
}

// txFailure is handleTxBlob's list of what failed, in monerod's order.
func txFailure(f consensus.TxFlags) string {
	var parts []string
	for _, c := range []struct {
		flag consensus.TxFlags
		text string
	}{{consensus.FlagLowMixin, "mixin too low"}, {consensus.FlagDoubleSpend, "double spend"},
		{consensus.FlagInvalidInput, "invalid input"}, {consensus.FlagInvalidOutput, "invalid output"},
		{consensus.FlagTooBig, "too big"}, {consensus.FlagOverspend, "overspend"},
		{consensus.FlagFeeTooLow, "fee too low"}, {consensus.FlagTooFewOutputs, "too few outputs"},
		{consensus.FlagTxExtraTooBig, "tx_extra too long"}, {consensus.FlagNonzeroUnlockTime, "non-zero unlock time"}} {
		if f&c.flag != 0 {
			parts = append(parts, c.text)
		}
	}
	if len(parts) == 0 {
		return "an unknown issue was found with the transaction"
	}
	return strings.Join(parts, " and ")
}

func (s *Server) sendRawTxHex(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	v, ok := o.find("tx_as_hex")
	if !ok {
		return "", missingKey("tx_as_hex")
	}
	if v.kind() != kindString {
		return "", wrongType("string")
	}
	txHex, _, _ := decodeString(v, 0, true)
	txHex = cString(txHex)
	relay, err := getBool(o, "relay")
	if err != nil {
		return "", err
	}
	blob, err := hex.DecodeString(txHex)
	if err != nil {
		return "Invalid hex", nil
	}
	return s.submitBlob(blob, relay, w)
}

// submitBlob is handleTxBlob, where send_raw_tx and send_raw_tx_hex meet.
func (s *Server) submitBlob(blob []byte, relay bool, w *writer) (string, error) {
	if !s.peers.Synchronized() {
		return "Not ready to accept transactions; try again later", nil
	}
	if s.submit == nil {
		return "an unknown issue was found with the transaction", nil
	}
	entry, err := s.submit.Add(blob, txpool.AddOptions{Source: txpool.SourceRPC, DoNotRelay: !relay})
	relayed := true
	switch {
	case errors.Is(err, txpool.ErrAlreadyInPool), errors.Is(err, txpool.ErrAlreadyInChain):
		relayed = false // handle_incoming_tx succeeds without relaying
	case err != nil:
		return txFailure(consensus.FlagsOf(err)), nil
	case entry.DoNotRelay || !relay:
		relayed = false
	}
	w.key("relayed")
	w.b = strconv.AppendBool(w.b, relayed)
	return "", nil
}

func (s *Server) startMining(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	v, ok := o.find("miner_address")
	if !ok {
		return "", missingKey("miner_address")
	}
	if v.kind() != kindString {
		return "", wrongType("string")
	}
	addr, _, _ := decodeString(v, 0, true)
	threads, err := getUint64(o, "threads_count")
	if err != nil {
		return "", err
	}
	background, err := getBool(o, "do_background_mining")
	if err != nil {
		return "", err
	}
	ignoreBattery, err := getBool(o, "ignore_battery")
	if err != nil {
		return "", err
	}
	to, err := address.ParseFor(cString(addr), s.chain.Network())
	if err != nil {
		return "Failed, wrong address", nil
	}
	if to.Kind == address.Subaddress {
		return "Failed, mining to subaddress isn't supported yet", nil
	}
	if threads > uint64(runtime.NumCPU()*4) {
		return "Failed, too many threads relative to CPU cores.", nil
	}
	if s.miner == nil || s.miner.Start(to, int(threads), background, ignoreBattery) != nil {
		return "Failed, mining not started", nil
	}
	return "", nil
}

// stopMining: miner::stop succeeds when nothing is mining, so unlike the
// HTTP method this answers OK then.
func (s *Server) stopMining(_ raw, w *writer) (string, error) {
	if s.miner != nil {
		if err := s.miner.Stop(); err != nil && !errors.Is(err, miner.ErrNotMining) {
			return "Failed, mining not stopped", nil
		}
	}
	return "", nil
}

func (s *Server) miningStatus(_ raw, w *writer) (string, error) {
	var st miner.Status
	if s.miner != nil {
		st = s.miner.Status()
	}
	var speed, threads uint64
	addr := ""
	if st.Active {
		speed, threads = st.Speed, uint64(st.Threads)
		std := st.Address
		std.Kind = address.Standard
		addr = std.String()
	}
	w.key("active")
	w.b = strconv.AppendBool(w.b, st.Active)
	w.uint("speed", speed)
	w.uint("threads_count", threads)
	w.key("address")
	w.b = writeString(w.b, addr)
	w.key("is_background_mining_enabled")
	w.b = strconv.AppendBool(w.b, st.Background)
	return "", nil
}

// setLogLevel accepts monerod's levels 0-4; gonero's log level is the
// node's (slog), so nothing changes.
func (s *Server) setLogLevel(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	v, ok := o.find("level")
	if !ok {
		return "", missingKey("level")
	}
	if v.kind() != kindNumber {
		return "", wrongType("integer")
	}
	n := parseNumber(v)
	if n.double || n.u > 1<<31 || (!n.neg && n.u > 1<<31-1) {
		return "", wrongType("integer")
	}
	if n.neg && n.u != 0 || n.u > 4 {
		return "Error: log level not valid", nil
	}
	return "", nil
}

// saveBC: gonero's store commits every block; there is nothing to flush.
func (s *Server) saveBC(raw, *writer) (string, error) { return "", nil }

const (
	spendableAge              = 10            // CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE
	restrictedHistogramCutoff = 3 * 24 * 3600 // seconds
)

func sortByAmount[T any](s []T, amount func(T) uint64) {
	slices.SortFunc(s, func(a, b T) int { return cmp.Compare(amount(a), amount(b)) })
}

func (s *Server) getOutputHistogram(params raw, w *writer) (string, error) {
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
	minCount, err := getUint64(o, "min_count")
	if err != nil {
		return "", err
	}
	maxCount, err := getUint64(o, "max_count")
	if err != nil {
		return "", err
	}
	unlocked, err := getBool(o, "unlocked")
	if err != nil {
		return "", err
	}
	cutoff, err := getUint64(o, "recent_cutoff")
	if err != nil {
		return "", err
	}
	if s.cfg.Restricted && len(amounts) == 0 {
		return "Restricted RPC will not serve histograms on the whole blockchain. Use your own node.", nil
	}
	if s.cfg.Restricted && int64(cutoff) < s.now().Unix()-restrictedHistogramCutoff {
		return "Recent cutoff is too old", nil
	}
	type entry struct{ amount, total, unlocked, recent uint64 }
	var entries []entry
	err = s.chain.View(func(r *chaindb.Reader) error {
		entries = entries[:0]
		if len(amounts) == 0 {
			if err := r.ForEachOutputAmount(func(amount, count uint64) error {
				entries = append(entries, entry{amount: amount, total: count})
				return nil
			}); err != nil {
				return err
			}
		} else {
			seen := map[uint64]bool{}
			for _, a := range amounts {
				if seen[a] {
					continue
				}
				seen[a] = true
				n, err := r.OutputCount(a)
				if err != nil {
					return err
				}
				entries = append(entries, entry{amount: a, total: n})
			}
		}
		sortByAmount(entries, func(e entry) uint64 { return e.amount })
		if !unlocked && cutoff == 0 {
			return nil
		}
		height, err := r.Height()
		if err != nil {
			return err
		}
		stamps := map[uint64]uint64{}
		for i := range entries {
			e := &entries[i]
			n := e.total
			for n > 0 {
				out, err := r.Output(e.amount, n-1)
				if err != nil {
					return err
				}
				if out.Height+spendableAge <= height {
					break
				}
				n--
			}
			e.unlocked = n
			for cutoff > 0 && n > 0 {
				out, err := r.Output(e.amount, n-1)
				if err != nil {
					return err
				}
				ts, ok := stamps[out.Height]
				if !ok {
					m, err := r.MetaByHeight(out.Height)
					if err != nil {
						return err
					}
					ts = m.Timestamp
					stamps[out.Height] = ts
				}
				if ts < cutoff {
					break
				}
				n--
				e.recent++
			}
		}
		return nil
	})
	if err != nil {
		return errStore, nil
	}
	w.key("histogram")
	w.b = append(w.b, '[')
	first := true
	for _, e := range entries {
		if e.total < minCount || (e.total > maxCount && maxCount != 0) {
			continue
		}
		if !first {
			w.b = append(w.b, ',')
		}
		first = false
		w.b = append(w.b, `{"amount":`...)
		w.b = strconv.AppendUint(w.b, e.amount, 10)
		w.b = append(w.b, `,"total_count":`...)
		w.b = strconv.AppendUint(w.b, e.total, 10)
		w.b = append(w.b, `,"unlocked_count":`...)
		w.b = strconv.AppendUint(w.b, e.unlocked, 10)
		w.b = append(w.b, `,"recent_count":`...)
		w.b = strconv.AppendUint(w.b, e.recent, 10)
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, ']')
	return "", nil
}

func (s *Server) getTransactionPool(_ raw, w *writer) (string, error) {
	var entries []*txpool.Entry
	if s.pool != nil {
		entries = s.pool.PublicEntries()
	}
	// get_pool_for_rpc lists the broadcast transactions in the pool
	// table's order: LMDB's compare_hash32 on the id, not its bytes' order;
	// receive and relay times only unrestricted.
	sortAsPoolTable(entries)
	// max_used_block: the newest block holding a ring member of the
	// transaction (check_tx_inputs' max_used_block_height), found here
	// from the store since the pool does not keep it.
	maxUsed := make([]chaindb.BlockMeta, len(entries))
	hasMaxUsed := make([]bool, len(entries))
	_ = s.chain.View(func(r *chaindb.Reader) error {
		for i, e := range entries {
			var top uint64
			found := false
			for _, in := range e.Tx.Inputs {
				k, ok := in.(cryptonote.TxInToKey)
				if !ok {
					continue
				}
				for _, idx := range consensus.AbsoluteOffsets(k.KeyOffsets) {
					o, err := r.Output(k.Amount, idx)
					if err != nil {
						continue
					}
					if !found || o.Height > top {
						top, found = o.Height, true
					}
				}
			}
			if found {
				if m, err := r.MetaByHeight(top); err == nil {
					maxUsed[i], hasMaxUsed[i] = m, true
				}
			}
		}
		return nil
	})
	w.key("transactions")
	w.b = append(w.b, '[')
	kis := map[cryptonote.Key][]cryptonote.Hash{}
	var kiOrder []cryptonote.Key
	for i, e := range entries {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		var receive, relayedAt uint64
		if !s.cfg.Restricted {
			receive = uint64(e.Received.Unix())
			if !e.LastRelayed.IsZero() {
				relayedAt = uint64(e.LastRelayed.Unix())
			}
		}
		b := append(w.b, `{"tx":`...)
		b = zmqpub.AppendTxJSON(b, e.Tx, false)
		b = append(b, `,"tx_hash":"`...)
		b = hex.AppendEncode(b, e.ID[:])
		b = append(b, `","blob_size":`...)
		b = strconv.AppendUint(b, uint64(len(e.Blob)), 10)
		b = append(b, `,"weight":`...)
		b = strconv.AppendUint(b, e.Weight, 10)
		b = append(b, `,"fee":`...)
		b = strconv.AppendUint(b, e.Fee, 10)
		// gonero's pool does not keep the last block a transaction failed
		// in (monerod's last_failed_id): written as never set.
		b = append(b, `,"max_used_block_hash":"`...)
		b = hex.AppendEncode(b, maxUsed[i].Hash[:])
		b = append(b, `","max_used_block_height":`...)
		b = strconv.AppendUint(b, maxUsed[i].Height, 10)
		b = append(b, `,"kept_by_block":`...)
		b = strconv.AppendBool(b, e.KeptByBlock)
		b = append(b, `,"last_failed_block_hash":"0000000000000000000000000000000000000000000000000000000000000000","last_failed_block_height":0,"receive_time":`...)
		b = strconv.AppendUint(b, receive, 10)
		b = append(b, `,"last_relayed_time":`...)
		b = strconv.AppendUint(b, relayedAt, 10)
		// monerod marks a transaction it was asked to relay over RPC as
		// relayed as soon as it hands it to the protocol, peers or not;
		// gonero's pool when a peer got it.
		b = append(b, `,"relayed":`...)
		b = strconv.AppendBool(b, e.Relayed || (e.Source == txpool.SourceRPC && !e.DoNotRelay))
		b = append(b, `,"do_not_relay":`...)
		b = strconv.AppendBool(b, e.DoNotRelay)
		b = append(b, `,"double_spend_seen":`...)
		b = strconv.AppendBool(b, e.DoubleSpendSeen)
		w.b = append(b, '}')
		for _, in := range e.Tx.Inputs {
			if k, ok := in.(cryptonote.TxInToKey); ok {
				if _, seen := kis[k.KeyImage]; !seen {
					kiOrder = append(kiOrder, k.KeyImage)
				}
				kis[k.KeyImage] = append(kis[k.KeyImage], e.ID)
			}
		}
	}
	w.b = append(w.b, ']')
	// An unordered_map in monerod: any order is its order.
	w.key("key_images")
	w.b = append(w.b, '{')
	for i, ki := range kiOrder {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, '"')
		w.b = hex.AppendEncode(w.b, ki[:])
		w.b = append(w.b, `":[`...)
		for j, id := range kis[ki] {
			if j > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, '"')
			w.b = hex.AppendEncode(w.b, id[:])
			w.b = append(w.b, '"')
		}
		w.b = append(w.b, ']')
	}
	w.b = append(w.b, '}')
	return "", nil
}

// sortAsPoolTable puts entries in the order of monerod's txpool_meta table,
// LMDB's compare_hash32 on the id (its last 32-bit word, little-endian,
// most significant), which its ZMQ and HTTP pool lists follow.
func sortAsPoolTable(entries []*txpool.Entry) {
	slices.SortFunc(entries, func(a, b *txpool.Entry) int { return cryptonote.CompareHash32(a.ID, b.ID) })
}
