package rpc

import (
	"encoding/hex"
	"slices"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/rpctypes"
	"github.com/gonero/gonero/txpool"
)

// The pool endpoints: /get_transaction_pool, /get_transaction_pool_stats,
// get_txpool_backlog, flush_txpool and relay_tx (core_rpc_server.cpp and
// tx_pool.cpp, v0.18.0.0).

// poolInfoEndpoints are the pool queries and controls (endpoints.go).
func poolInfoEndpoints() []endpoint {
	return []endpoint{
		// Refused on a restricted listener since 0.18.4.
		{names: []string{"/get_transaction_pool"}, access: accessRefused, path: (*Server).serveTransactionPool},
		// Capped: do-not-relay and stem-phase transactions are not counted.
		{names: []string{"/get_transaction_pool_stats"}, access: accessCapped, path: (*Server).serveTransactionPoolStats},
		{names: []string{"get_txpool_backlog"}, access: accessPublic, method: getTxpoolBacklog},
		// flush_txpool's request is rpc_request_base: no "client" member.
		{names: []string{"flush_txpool"}, access: accessRefused, method: flushTxpool, noClient: true, deepParams: true},
		{names: []string{"relay_tx"}, access: accessRefused, method: relayTx, deepParams: true},
	}
}

// neverRelayed is the last_relayed_time monerod keeps for a transaction it
// has not relayed yet (add_tx sets the maximum of the uint64 member, and set_relayed
// replaces it when the transaction goes out): a do_not_relay transaction
// shows it.
const neverRelayed = ^uint64(0)

// reportedRelayed is the relayed flag monerod reports: a transaction a
// popped block brought back is added with relayed set (add_tx's relayed
// argument, relay_method::block) while its last_relayed_time stays
// neverRelayed; gonero's entry says whether this node handed it on.
func reportedRelayed(e *txpool.Entry) bool {
	return e.Relayed || e.Source == txpool.SourceBlock
}

// visiblePool is the pool as a listener sees it, in monerod's table order:
// a restricted listener does not see transactions kept back from relaying
// or in their Dandelion++ stem phase (relay_category::broadcasted).
func (s *Server) visiblePool(restricted bool) []txpool.Entry {
	if s.pool == nil {
		return nil
	}
	all := s.pool.Snapshot()
	out := all[:0]
	for _, e := range all {
		if !restricted || !(e.DoNotRelay || e.Stem) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b txpool.Entry) int { return cryptonote.CompareHash32(a.ID, b.ID) })
	return out
}

// poolKeyImages are the key images the visible pool spends, each once.
func (s *Server) poolKeyImages(restricted bool) []cryptonote.Key {
	var out []cryptonote.Key
	seen := map[cryptonote.Key]bool{}
	for _, e := range s.visiblePool(restricted) {
		for _, in := range e.Tx.Inputs {
			if k, ok := in.(cryptonote.TxInToKey); ok && !seen[k.KeyImage] {
				seen[k.KeyImage] = true
				out = append(out, k.KeyImage)
			}
		}
	}
	return out
}

// maxUsedBlock is the block of the newest ring member a transaction uses:
// for each input the last member of its ring (the highest global index),
// the highest block among them (Blockchain::check_tx_inputs'
// max_used_block_height and its id), read from the output index.
func maxUsedBlock(r *chaindb.Reader, tx *cryptonote.Transaction) (uint64, cryptonote.Hash, error) {
	var height uint64
	for _, in := range tx.Inputs {
		k, ok := in.(cryptonote.TxInToKey)
		if !ok || len(k.KeyOffsets) == 0 {
			continue
		}
		var last uint64
		for _, o := range k.KeyOffsets {
			last += o
		}
		out, err := r.Output(k.Amount, last)
		if err != nil {
			return 0, cryptonote.Hash{}, err
		}
		height = max(height, out.Height)
	}
	meta, err := r.MetaByHeight(height)
	if err != nil {
		return 0, cryptonote.Hash{}, err
	}
	return height, meta.Hash, nil
}

func (s *Server) serveTransactionPool(req *httpd.Request) httpd.Response {
	if _, ok := rpctypes.PathRequest(req.Body); !ok {
		return badRequest()
	}
	entries := s.visiblePool(req.Restricted)
	var out rpctypes.GetTransactionPoolResponse
	// Each transaction's part of the answer (its blob in hex, its JSON,
	// about six times the blob) is claimed before it is made.
	claim, refused := answerClaim{req: req}, false
	err := s.store.View(func(r *chaindb.Reader) error {
		out.Transactions, refused = out.Transactions[:0], false
		claim.restart()
		for i := range entries {
			e := &entries[i]
			if !claim.add(6*len(e.Blob) + txListingBytes) {
				refused = true
				return nil
			}
			info := rpctypes.TxInfo{IDHash: e.ID.String(), TxJSON: e.Tx.MonerodJSON(), BlobSize: uint64(len(e.Blob)),
				Weight: e.Weight, Fee: e.Fee, KeptByBlock: e.KeptByBlock, LastFailedIDHash: cryptonote.Hash{}.String(),
				Relayed: reportedRelayed(e), DoNotRelay: e.DoNotRelay, DoubleSpendSeen: e.DoubleSpendSeen,
				TxBlobHex: hex.EncodeToString(e.Blob)}
			h, id, err := maxUsedBlock(r, e.Tx)
			if err != nil {
				// A transaction back from a popped block may spend outputs
				// that are gone: monerod then keeps height 0 and a null id.
				h, id = 0, cryptonote.Hash{}
			}
			info.MaxUsedBlockHeight, info.MaxUsedBlockIDHash = h, id.String()
			// What a restricted listener does not see: when it arrived
			// and was last relayed (also hidden during the stem phase).
			if !req.Restricted {
				info.ReceiveTime = uint64(e.Received.Unix())
				if !e.Stem {
					info.LastRelayedTime = neverRelayed
					if !e.LastRelayed.IsZero() {
						info.LastRelayedTime = uint64(e.LastRelayed.Unix())
					}
				}
			}
			out.Transactions = append(out.Transactions, info)
		}
		return nil
	})
	if err != nil {
		s.log.Error("get_transaction_pool: chain read failed", "err", err)
		return httpd.Response{Status: 500, ContentType: "text/plain"}
	}
	if refused {
		return s.busyAnswer(req)
	}
	// Key images with the visible transactions spending them.
	byImage := map[cryptonote.Key][]string{}
	var order []cryptonote.Key
	for i := range entries {
		for _, in := range entries[i].Tx.Inputs {
			k, ok := in.(cryptonote.TxInToKey)
			if !ok {
				continue
			}
			if _, seen := byImage[k.KeyImage]; !seen {
				order = append(order, k.KeyImage)
			}
			byImage[k.KeyImage] = append(byImage[k.KeyImage], entries[i].ID.String())
		}
	}
	for _, ki := range order {
		out.SpentKeyImages = append(out.SpentKeyImages, rpctypes.SpentKeyImageInfo{IDHash: hex.EncodeToString(ki[:]), TxsHashes: byImage[ki]})
	}
	w := epeejson.NewWriter(make([]byte, 0, 4096))
	out.Write(w)
	return jsonResponse(w)
}

func (s *Server) serveTransactionPoolStats(req *httpd.Request) httpd.Response {
	if _, ok := rpctypes.PathRequest(req.Body); !ok {
		return badRequest()
	}
	st := poolStats(s.visiblePool(req.Restricted), time.Now())
	w := epeejson.NewWriter(make([]byte, 0, 1024))
	rpctypes.WritePoolStats(w, &st)
	return jsonResponse(w)
}

// poolStats is tx_memory_pool::get_transaction_stats. The 32-bit members
// are truncated as monerod's uint32_t members are.
func poolStats(entries []txpool.Entry, at time.Time) rpctypes.TxpoolStats {
	now := uint64(at.Unix())
	var st rpctypes.TxpoolStats
	st.TxsTotal = uint64(uint32(len(entries)))
	weights := make([]uint64, 0, len(entries))
	ages := map[uint64]*rpctypes.TxpoolHisto{}
	for i := range entries {
		e := &entries[i]
		weight := uint64(uint32(e.Weight))
		received := uint64(e.Received.Unix())
		weights = append(weights, weight)
		st.BytesTotal += e.Weight
		if st.BytesMin == 0 || weight < st.BytesMin {
			st.BytesMin = weight
		}
		st.BytesMax = max(st.BytesMax, weight)
		if !reportedRelayed(e) {
			st.NumNotRelayed++
		}
		st.FeeTotal += e.Fee
		if st.Oldest == 0 || received < st.Oldest {
			st.Oldest = received
		}
		if received < now-600 {
			st.Num10m++
		}
		// last_failed_height is never set: gonero does not record
		// template failures, so num_failing stays 0.
		age := now - received
		if now == received {
			age++
		}
		h := ages[age]
		if h == nil {
			h = &rpctypes.TxpoolHisto{}
			ages[age] = h
		}
		h.Txs++
		h.Bytes += e.Weight
		if e.DoubleSpendSeen {
			st.NumDoubleSpends++
		}
	}
	st.BytesMed = consensus.Median(weights)
	if st.TxsTotal <= 1 {
		return st
	}
	keys := make([]uint64, 0, len(ages))
	for a := range ages {
		keys = append(keys, a)
	}
	slices.Sort(keys)
	// The oldest 2% go to a last bin; the rest spread over the others
	// (the loop walks the ages from the oldest, as monerod's map does).
	end := int(float64(st.TxsTotal) * 0.02)
	var split int // index in keys of the first age in the last bin
	var factor, delta uint64
	if end > 0 {
		split = len(keys)
		cumulative := 0
		for {
			split--
			cumulative += int(ages[keys[split]].Txs)
			if split == 0 || cumulative >= end {
				break
			}
		}
		st.Histo98pc = keys[split]
		factor, delta = 9, keys[split]
		st.Histo = make([]rpctypes.TxpoolHisto, 10)
	} else {
		split = len(keys)
		factor = min(st.TxsTotal, 10)
		if st.TxsTotal > 9 {
			factor = 10
		}
		delta = now - st.Oldest
		st.Histo = make([]rpctypes.TxpoolHisto, factor)
	}
	if delta == 0 {
		delta = 1
	}
	for _, a := range keys[:split] {
		i := (a*factor - 1) / delta
		st.Histo[i].Txs += ages[a].Txs
		st.Histo[i].Bytes += ages[a].Bytes
	}
	for _, a := range keys[split:] {
		st.Histo[factor].Txs += ages[a].Txs
		st.Histo[factor].Bytes += ages[a].Bytes
	}
	return st
}

// getTxpoolBacklog lists the public pool transactions (monerod asks
// get_txpool_backlog without sensitive transactions on every listener):
// weight, fee and time in pool. That last is monerod's receive_time − now,
// which wraps around to just under 2^64 for every transaction.
func getTxpoolBacklog(c *call) (func(*epeejson.Writer), *Error) {
	now := uint64(time.Now().Unix())
	var entries []rpctypes.BacklogEntry
	pool := c.server.visiblePool(true)
	// 24 bytes an entry gathered, and in the answer's string (escaped).
	if !c.claimItems(uint64(len(pool)), backlogEntryBytes) {
		return nil, errCoreBusy
	}
	for _, e := range pool {
		entries = append(entries, rpctypes.BacklogEntry{Weight: e.Weight, Fee: e.Fee, TimeInPool: uint64(e.Received.Unix()) - now})
	}
	return func(w *epeejson.Writer) {
		w.BeginObject()
		if len(entries) > 0 {
			w.KeyString("backlog", rpctypes.BacklogBlob(entries))
		}
		writeCredits(w)
		w.KeyString("status", statusOK)
		w.KeyString("top_hash", "")
		writeUntrusted(w)
		w.EndObject()
	}, nil
}

// parseTxid is epee hex_to_pod for a hash: exactly 64 hex digits.
func parseTxid(s string) (cryptonote.Hash, bool) {
	var h cryptonote.Hash
	if len(s) != 2*len(h) {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}

// flushTxpool removes the listed transactions (all, when none is listed);
// unknown ids are no error, unparsable ones are reported in the status
// after the others are removed.
func flushTxpool(c *call) (func(*epeejson.Writer), *Error) {
	texts, e := rpctypes.ParseTxids(c.params)
	if e != nil {
		return nil, e
	}
	status := statusOK
	var ids []cryptonote.Hash
	if len(texts) == 0 {
		// Everything, in monerod's table order: the order the removals
		// are reported in to wallets asking /getblocks.bin for the pool's
		// changes.
		for _, e := range c.server.visiblePool(false) {
			ids = append(ids, e.ID)
		}
	} else {
		failed := false
		for _, t := range texts {
			id, ok := parseTxid(t)
			if !ok {
				failed = true
				continue
			}
			ids = append(ids, id)
		}
		if failed {
			status = "Failed to parse some of the txids"
			if len(ids) == 0 {
				status = "Failed to parse txid"
			}
		}
	}
	if c.server.pool != nil {
		c.server.pool.Remove(ids)
	}
	return func(w *epeejson.Writer) {
		w.BeginObject()
		w.KeyString("status", status)
		writeUntrusted(w)
		w.EndObject()
	}, nil
}

// relayTx relays pool transactions again: a public one is fluffed, one
// kept back (do_not_relay) is released and relayed as a local one (the
// restricted listener refuses the method, so it always may). Every id
// that does not parse or is not in the pool is named in one -5 error,
// after the others were relayed.
func relayTx(c *call) (func(*epeejson.Writer), *Error) {
	texts, e := rpctypes.ParseTxids(c.params)
	if e != nil {
		return nil, e
	}
	msg := ""
	add := func(s string) {
		if msg != "" {
			msg += ", "
		}
		msg += s
	}
	for _, t := range texts {
		id, ok := parseTxid(t)
		if !ok {
			add("invalid transaction id: " + t)
			continue
		}
		if c.server.pool == nil || !c.server.pool.Relay(id, !c.restricted) {
			add("transaction not found in pool: " + t)
		}
	}
	if msg != "" {
		return nil, &Error{Code: codeInternalError, Message: msg}
	}
	return func(w *epeejson.Writer) {
		w.BeginObject()
		writeCredits(w)
		w.KeyString("status", statusOK)
		w.KeyString("top_hash", "")
		writeUntrusted(w)
		w.EndObject()
	}, nil
}
