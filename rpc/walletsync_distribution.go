package rpc

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/rpctypes"
)

// errNoDistribution is get_output_distribution's "cannot" (monerod's
// boost::none): a range the chain does not have.
var errNoDistribution = errors.New("rpc: no output distribution for that range")

// rctStartHeight is where get_output_distribution starts amount 0: the
// first height RingCT outputs can exist (hard fork 4), 0 on regtest.
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

// outputDistribution is RpcHandler::get_output_distribution over
// Blockchain::get_output_distribution for one amount: the per-block (or,
// cumulative, running) count of outputs from max(from, the amount's start)
// to to, to already resolved (0 in the request means the top).
//
// Surprising but monerod's: for an amount other than 0 the first value
// includes every output below from_height and base stays 0; for amount 0,
// base is the count below start_height and the first value excludes it.
func (s *Server) outputDistribution(r *chaindb.Reader, amount, from, to, height uint64, cumulative bool) (*rpctypes.Distribution, error) {
	var start uint64
	if amount == 0 {
		start = rctStartHeight(s.network)
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
			// monerod reserves to+1-start heights: a length error, caught
			// as a failure.
			return nil, errNoDistribution
		}
		cum, err := s.ws().rct.cumulative(r, s.network, to)
		if err != nil {
			return nil, err
		}
		dist = append([]uint64(nil), cum[start:to+1]...)
		if start > 0 {
			base = cum[start-1]
		}
	} else {
		var err error
		if dist, err = amountDistribution(r, amount, from, height); err != nil {
			return nil, err
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
	return &rpctypes.Distribution{Amount: amount, StartHeight: start, Base: base, Data: dist}, nil
}

// amountDistribution is BlockchainLMDB::get_output_distribution: the
// running count of outputs of amount per block from from to the top, the
// outputs below from counted in the first value.
func amountDistribution(r *chaindb.Reader, amount, from, height uint64) ([]uint64, error) {
	if from >= height {
		return nil, errNoDistribution
	}
	dist := make([]uint64, height-from)
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
	return dist, nil
}

// rctCounts caches the cumulative count of RingCT outputs at each height
// (the store's rct_counts index, read once), as monerod caches its amount-0
// distribution. Entries stay valid while the block at their height does;
// hashes kept every rctCheckEvery heights (and at the end) find how much
// of the cache a reorganisation left valid.
type rctCounts struct {
	mu     sync.Mutex
	cum    []uint64
	checks []cryptonote.Hash // checks[i]: id at height i*rctCheckEvery
	last   cryptonote.Hash   // id at height len(cum)-1
}

const rctCheckEvery = 256

// cumulative returns the counts for heights 0..to (at least), valid for the
// snapshot r. The slice must not be modified.
func (c *rctCounts) cumulative(r *chaindb.Reader, _ params.Network, to uint64) ([]uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idAt := func(h uint64) (cryptonote.Hash, error) {
		m, err := r.MetaByHeight(h)
		return m.Hash, err
	}
	if n := uint64(len(c.cum)); n > 0 {
		id, err := idAt(n - 1)
		if err != nil || id != c.last {
			// Keep the prefix up to the newest check that still holds.
			keep := uint64(0)
			for i := len(c.checks) - 1; i >= 0; i-- {
				h := uint64(i) * rctCheckEvery
				if h >= n {
					continue
				}
				if id, err := idAt(h); err == nil && id == c.checks[i] {
					keep = h + 1
					break
				}
			}
			c.cum = c.cum[:keep]
			c.checks = c.checks[:(keep+rctCheckEvery-1)/rctCheckEvery]
			if keep > 0 {
				if c.last, err = idAt(keep - 1); err != nil {
					return nil, err
				}
			}
		}
	}
	for h := uint64(len(c.cum)); h <= to; h++ {
		v, err := r.RctOutputsUpTo(h)
		if err != nil {
			return nil, err
		}
		c.cum = append(c.cum, v)
		if h%rctCheckEvery == 0 {
			id, err := idAt(h)
			if err != nil {
				return nil, err
			}
			c.checks = append(c.checks, id)
		}
		if h == to {
			if c.last, err = idAt(h); err != nil {
				return nil, err
			}
		}
	}
	return c.cum, nil
}

// distributions answers a distribution request for the snapshot r,
// claiming per bytes for each entry of each distribution before it is
// made (errAnswerRefused: refused).
func (s *Server) distributions(r *chaindb.Reader, in *rpctypes.DistributionRequest, claim *answerClaim, per int) ([]*rpctypes.Distribution, error) {
	height, err := r.Height()
	if err != nil {
		return nil, err
	}
	to := in.ToHeight
	if to == 0 {
		to = height - 1 // 0 stands for the top (wraps on an empty chain, which then fails)
	}
	claim.restart()
	out := make([]*rpctypes.Distribution, 0, len(in.Amounts))
	for _, amount := range in.Amounts {
		// At most an entry per height from from_height to the top (an
		// amount other than 0 is read to the top, then cut).
		if !claim.addItems(height-min(in.FromHeight, height), per) {
			return nil, errAnswerRefused
		}
		d, err := s.outputDistribution(r, amount, in.FromHeight, to, height, in.Cumulative)
		if err != nil {
			return nil, err
		}
		d.Binary, d.Compress = in.Binary, in.Compress
		out = append(out, d)
	}
	return out, nil
}

// rctOnly reports whether amounts is exactly [0], the only request a
// restricted listener serves.
func rctOnly(amounts []uint64) bool { return len(amounts) == 1 && amounts[0] == 0 }

// serveOutputDistributionBin is /get_output_distribution.bin.
func (s *Server) serveOutputDistributionBin(req *httpd.Request) httpd.Response {
	version := s.answerVersion()
	if answer, ok := s.answers.get(version, routeDistribution, req); ok { // see fastpath.go
		return httpd.Response{ContentType: "application/octet-stream", Body: answer}
	}
	in, err := rpctypes.ParseDistributionBinRequest(req.Body)
	if err != nil {
		return badRequest()
	}
	if req.Restricted && !rctOnly(in.Amounts) {
		// monerod sets a status but returns false: an empty 500.
		return internalError()
	}
	if !in.Binary {
		return statusOnlyBin("Binary only call")
	}
	// The answer depends on the request and the chain alone, and the top
	// id stands for the whole chain: a wallet's repeated request (amount 0,
	// to the top) is answered from the cache until a block arrives.
	top := s.chain.Top().Hash
	key := distributionKey(&in, top)
	ws := s.ws()
	if key != "" {
		ws.distMu.Lock()
		body, hit := ws.dist[key]
		ws.distMu.Unlock()
		if hit {
			s.answers.put(version, s.answerVersion(), routeDistribution, req, body)
			return httpd.Response{ContentType: "application/octet-stream", Body: body}
		}
	}
	var ds []*rpctypes.Distribution
	consistent := true
	claim := &answerClaim{req: req}
	if err := s.wsView("get_output_distribution", func(r *chaindb.Reader) error {
		t, err := r.Top()
		if err != nil {
			return err
		}
		consistent = t.Hash == top
		ds, err = s.distributions(r, &in, claim, distributionBinEntryBytes)
		return err
	}); errors.Is(err, errAnswerRefused) {
		return s.busyAnswer(req)
	} else if err != nil {
		return statusOnlyBin("Failed to get output distribution")
	}
	n := 4
	size := 128
	if len(ds) > 0 {
		n++
		for _, d := range ds {
			size += 96 + 9*len(d.Data)
		}
	}
	w := rpctypes.BinAnswer(n, size)
	w.FieldUint64("credits", 0)
	if len(ds) > 0 {
		w.Array("distributions", portable.TypeObject, len(ds))
		for _, d := range ds {
			d.WriteBin(w)
		}
	}
	rpctypes.WriteBinTail(w, statusOK)
	if key != "" && consistent {
		ws.distMu.Lock()
		if len(ws.dist) >= maxCachedDistributions {
			clear(ws.dist)
		}
		ws.dist[key] = w.Bytes()
		ws.distMu.Unlock()
		s.answers.put(version, s.answerVersion(), routeDistribution, req, w.Bytes())
	}
	return binResponse(w)
}

// maxCachedDistributions bounds the distribution answers kept; the cache
// is emptied when full (it refills with the requests wallets repeat).
const maxCachedDistributions = 64

// distributionKey names a request's answer on the chain whose top is top;
// "" for a request too large to be worth keeping.
func distributionKey(in *rpctypes.DistributionRequest, top cryptonote.Hash) string {
	if len(in.Amounts) > 4 {
		return ""
	}
	b := make([]byte, 0, 32+3*8+3+8*len(in.Amounts))
	b = append(b, top[:]...)
	b = binary.LittleEndian.AppendUint64(b, in.FromHeight)
	b = binary.LittleEndian.AppendUint64(b, in.ToHeight)
	b = append(b, boolByte(in.Cumulative), boolByte(in.Binary), boolByte(in.Compress))
	for _, a := range in.Amounts {
		b = binary.LittleEndian.AppendUint64(b, a)
	}
	return string(b)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

var (
	errDistributionRestricted = &Error{Code: codeRestricted, Message: "Restricted RPC can only get output distribution for rct outputs. Use your own node."}
	errDistributionFailed     = &Error{Code: codeInternalError, Message: "Failed to get output distribution"}
)

// getOutputDistribution is the JSON-RPC get_output_distribution.
func getOutputDistribution(c *call) (func(*epeejson.Writer), *Error) {
	in, e := rpctypes.ParseDistributionParams(c.params)
	if e != nil {
		return nil, e
	}
	if c.restricted && !rctOnly(in.Amounts) {
		return nil, errDistributionRestricted
	}
	var ds []*rpctypes.Distribution
	if err := c.server.wsView("get_output_distribution", func(r *chaindb.Reader) error {
		var err error
		ds, err = c.server.distributions(r, &in, c.mem, distributionEntryBytes)
		return err
	}); errors.Is(err, errAnswerRefused) {
		return nil, errCoreBusy
	} else if err != nil {
		return nil, errDistributionFailed
	}
	res := &rpctypes.GetOutputDistributionResponse{Distributions: ds}
	return res.Write, nil
}

// getOutputHistogram is the JSON-RPC get_output_histogram: per amount, how
// many outputs exist, how many are spendable by age (only when unlocked or
// recent_cutoff is asked) and how many of those are in blocks stamped at or
// after recent_cutoff.
func getOutputHistogram(c *call) (func(*epeejson.Writer), *Error) {
	in, e := rpctypes.ParseHistogramParams(c.params)
	if e != nil {
		return nil, e
	}
	status := statusOK
	var entries []rpctypes.HistogramEntry
	switch {
	case c.restricted && len(in.Amounts) == 0:
		status = "Restricted RPC will not serve histograms on the whole blockchain. Use your own node."
	case c.restricted && in.RecentCutoff > 0 && in.RecentCutoff < uint64(time.Now().Unix())-restrictedHistogramRecentCutoff:
		status = "Recent cutoff is too old"
	default:
		if err := c.server.wsView("get_output_histogram", func(r *chaindb.Reader) error {
			var err error
			entries, err = outputHistogram(r, &in, c.mem)
			return err
		}); errors.Is(err, errAnswerRefused) {
			return nil, errCoreBusy
		} else if err != nil {
			status = "Failed to get output histogram"
			entries = nil
		}
	}
	res := &rpctypes.GetOutputHistogramResponse{Histogram: entries, Status: status}
	return res.Write, nil
}

// outputHistogram is BlockchainLMDB::get_output_histogram followed by the
// handler's min/max filter. Amounts come out in ascending order, each once.
// Each entry is claimed from the memory budget as it is made
// (errAnswerRefused: refused).
func outputHistogram(r *chaindb.Reader, in *rpctypes.HistogramRequest, claim *answerClaim) ([]rpctypes.HistogramEntry, error) {
	claim.restart()
	var entries []rpctypes.HistogramEntry
	if len(in.Amounts) == 0 {
		if err := r.ForEachOutputAmount(func(amount, count uint64) error {
			if count >= in.MinCount {
				if !claim.add(histogramEntryBytes) {
					return errAnswerRefused
				}
				entries = append(entries, rpctypes.HistogramEntry{Amount: amount, Total: count})
			}
			return nil
		}); err != nil {
			return nil, err
		}
	} else {
		seen := make(map[uint64]bool, len(in.Amounts))
		for _, a := range in.Amounts {
			if seen[a] {
				continue
			}
			seen[a] = true
			n, err := r.OutputCount(a)
			if err != nil {
				return nil, err
			}
			if n >= in.MinCount {
				if !claim.add(histogramEntryBytes) {
					return nil, errAnswerRefused
				}
				entries = append(entries, rpctypes.HistogramEntry{Amount: a, Total: n})
			}
		}
		sortEntries(entries)
	}
	if in.Unlocked || in.RecentCutoff > 0 {
		height, err := r.Height()
		if err != nil {
			return nil, err
		}
		stamps := map[uint64]uint64{}
		for i := range entries {
			e := &entries[i]
			n := e.Total
			for n > 0 {
				o, err := r.Output(e.Amount, n-1)
				if err != nil {
					return nil, err
				}
				if o.Height+spendableAge <= height {
					break
				}
				n--
			}
			e.Unlocked = n
			if in.RecentCutoff > 0 {
				for n > 0 {
					o, err := r.Output(e.Amount, n-1)
					if err != nil {
						return nil, err
					}
					ts, ok := stamps[o.Height]
					if !ok {
						m, err := r.MetaByHeight(o.Height)
						if err != nil {
							return nil, err
						}
						ts = m.Timestamp
						stamps[o.Height] = ts
					}
					if ts < in.RecentCutoff {
						break
					}
					n--
					e.Recent++
				}
			}
		}
	}
	kept := entries[:0]
	for _, e := range entries {
		if e.Total >= in.MinCount && (e.Total <= in.MaxCount || in.MaxCount == 0) {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

func sortEntries(es []rpctypes.HistogramEntry) {
	slices.SortFunc(es, func(a, b rpctypes.HistogramEntry) int { return cmp.Compare(a.Amount, b.Amount) })
}
