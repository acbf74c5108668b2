package zmqrpc

import (
	"errors"
	"strconv"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/feeestimate"
	"github.com/gonero/gonero/params"
)

// Peers is what get_info reads of the P2P node (the public zone's
// figures, as monerod's get_public_* counts). rpc.Peers has the same
// methods, so the node can pass the same value.
type Peers interface {
	// Counts: incoming and outgoing connections, white and grey peer-list sizes.
	Counts() (incoming, outgoing, white, grey uint64)
	// TargetHeight is the height the node syncs towards (0 when none).
	TargetHeight() uint64
	// Synchronized is monerod's sticky "has synchronized" flag
	// (send_raw_tx_hex refuses transactions before).
	Synchronized() bool
}

// noPeers is an offline node's.
type noPeers struct{}

func (noPeers) Counts() (incoming, outgoing, white, grey uint64) { return 0, 0, 0, 0 }
func (noPeers) TargetHeight() uint64                             { return 0 }
func (noPeers) Synchronized() bool                               { return true }

func (s *Server) getInfo(_ raw, w *writer) (string, error) {
	next := s.chain.NextBlockFacts()
	net := s.chain.Network()
	height := next.Height
	target := max(s.peers.TargetHeight(), height)
	in, out, white, grey := s.peers.Counts()
	altBlocks := next.AltBlockCount
	start := uint64(s.cfg.StartTime.Unix())
	version := s.cfg.Version
	poolSize := uint64(0)
	if s.pool != nil {
		poolSize = uint64(s.pool.Count(!s.cfg.Restricted))
	}
	if s.cfg.Restricted {
		in, out, white, grey, altBlocks, start, version = 0, 0, 0, 0, 0, 0, ""
	}
	limit := consensus.BlockWeightLimit(next.EffectiveMedian)
	w.key("info")
	b := w.b
	b = append(b, `{"height":`...)
	b = strconv.AppendUint(b, height, 10)
	b = append(b, `,"target_height":`...)
	b = strconv.AppendUint(b, target, 10)
	b = append(b, `,"top_block_height":`...)
	b = strconv.AppendUint(b, next.Top.Height, 10)
	b = append(b, `,"difficulty":`...)
	b = strconv.AppendUint(b, next.Difficulty.Lo, 10)
	b = append(b, `,"difficulty_top64":`...)
	b = strconv.AppendUint(b, next.Difficulty.Hi, 10)
	b = append(b, `,"target":`...)
	b = strconv.AppendUint(b, consensus.DifficultyTarget(net.VersionAt(height)), 10)
	b = append(b, `,"tx_count":`...)
	b = strconv.AppendUint(b, next.TxCount, 10)
	for _, f := range []struct {
		k string
		v uint64
	}{{"tx_pool_size", poolSize}, {"alt_blocks_count", altBlocks}, {"outgoing_connections_count", out},
		{"incoming_connections_count", in}, {"white_peerlist_size", white}, {"grey_peerlist_size", grey}} {
		b = append(b, ',', '"')
		b = append(b, f.k...)
		b = append(b, '"', ':')
		b = strconv.AppendUint(b, f.v, 10)
	}
	b = append(b, `,"mainnet":`...)
	b = strconv.AppendBool(b, net == params.Mainnet)
	b = append(b, `,"testnet":`...)
	b = strconv.AppendBool(b, net == params.Testnet)
	b = append(b, `,"stagenet":`...)
	b = strconv.AppendBool(b, net == params.Stagenet)
	// DaemonInfo::nettype is never set by the ZMQ handler.
	b = append(b, `,"nettype":"","top_block_hash":"`...)
	b = append(b, next.Top.Hash.String()...)
	b = append(b, `","cumulative_difficulty":`...)
	b = strconv.AppendUint(b, next.Top.CumulativeDifficulty.Lo, 10)
	b = append(b, `,"cumulative_difficulty_top64":`...)
	b = strconv.AppendUint(b, next.Top.CumulativeDifficulty.Hi, 10)
	for _, f := range []struct {
		k string
		v uint64
	}{{"block_size_limit", limit}, {"block_weight_limit", limit}, {"block_size_median", next.EffectiveMedian},
		{"block_weight_median", next.EffectiveMedian}, {"adjusted_time", next.AdjustedTime(time.Now())}, {"start_time", start}} {
		b = append(b, ',', '"')
		b = append(b, f.k...)
		b = append(b, '"', ':')
		b = strconv.AppendUint(b, f.v, 10)
	}
	b = append(b, `,"version":`...)
	b = writeString(b, version)
	w.b = append(b, '}')
	return "", nil
}

// Hard-fork bookkeeping (hardfork.h).
const (
	hardForkWindow     = 10080
	hardForkForkedTime = 31557600
	hardForkUpdateTime = 31557600 / 2
	stateLikelyForked  = 0
	stateUpdateNeeded  = 1
	stateReady         = 2
	noHeight           = ^uint64(0)
)

func (s *Server) hardForkInfo(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	v, ok := o.find("version")
	if !ok {
		return "", missingKey("version")
	}
	// A uint8_t: rapidjson's IsUint, then a range check.
	if v.kind() != kindNumber {
		return "", wrongType("unsigned integer")
	}
	n := parseNumber(v)
	if n.double || (n.neg && n.u != 0) || n.u > 1<<32-1 {
		return "", wrongType("unsigned integer")
	}
	if n.u > 255 {
		return "", wrongType("numeric overflow")
	}
	version := uint8(n.u)
	net := s.chain.Network()
	forks := net.HardForks()
	newest := forks[len(forks)-1].Version
	var cur, voting uint8
	var enabled bool
	var window, votes, earliest uint64
	err = s.chain.View(func(r *chaindb.Reader) error {
		height, err := r.Height()
		if err != nil {
			return err
		}
		// HardFork's current version is the one voted in for the next
		// block; version 0 asks about the newest of the table
		// (get_ideal_hard_fork_version), unlike the HTTP method.
		cur = net.VersionAt(height)
		asked := version
		if asked == 0 {
			asked = newest
		}
		enabled = cur >= asked
		voting = newest
		earliest = noHeight
		for i := len(forks) - 1; i >= 0 && forks[i].Version >= asked; i-- {
			earliest = forks[i].Height
		}
		window, votes = min(height, hardForkWindow), 0
		if window > 0 {
			metas, err := r.MetasInRange(height-window, height)
			if err != nil {
				return err
			}
			for i := range metas {
				if min(max(metas[i].MinorVersion, 1), newest) >= asked {
					votes++
				}
			}
		}
		return nil
	})
	if err != nil {
		return errStore, nil
	}
	state := uint64(stateReady)
	if len(forks) > 1 {
		last := forks[len(forks)-1].Time
		switch t := time.Now().Unix(); {
		case t >= last+hardForkForkedTime:
			state = stateLikelyForked
		case t >= last+hardForkUpdateTime:
			state = stateUpdateNeeded
		}
	}
	w.key("info")
	b := w.b
	b = append(b, `{"version":`...)
	b = strconv.AppendUint(b, uint64(cur), 10)
	b = append(b, `,"enabled":`...)
	b = strconv.AppendBool(b, enabled)
	b = append(b, `,"window":`...)
	b = strconv.AppendUint(b, window, 10)
	b = append(b, `,"votes":`...)
	b = strconv.AppendUint(b, votes, 10)
	b = append(b, `,"threshold":0,"voting":`...) // every v0.18 threshold is 0
	b = strconv.AppendUint(b, uint64(voting), 10)
	b = append(b, `,"state":`...)
	b = strconv.AppendUint(b, state, 10)
	b = append(b, `,"earliest_height":`...)
	b = strconv.AppendUint(b, earliest, 10)
	w.b = append(b, '}')
	return "", nil
}

// getDynamicFeeEstimate is daemon_handler.cpp's GetFeeEstimate: before
// fork 8 the per-kB estimate (no levels, size_scale 1024, fee_mask 1),
// from it the 2021 scaling's levels, whose throws are answered as
// malformed JSON with their texts.
func (s *Server) getDynamicFeeEstimate(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	grace, err := getUint64(o, "num_grace_blocks")
	if err != nil {
		return "", err
	}
	next := s.chain.NextBlockFacts()
	net := s.chain.Network()
	height := next.Height
	hf := feeestimate.Version(net, height)
	var fees []uint64
	var base, mask, scale uint64 = 0, consensus.FeeQuantizationMask, 1 // from fork 8
	err = s.chain.View(func(r *chaindb.Reader) error {
		var err error
		if hf < consensus.VersionPerByteFee {
			mask, scale = 1, 1024
			base, err = feeestimate.Base(r, net, next, height, grace)
			return err
		}
		if fees, err = feeestimate.Scaling2021(r, net, next, height, grace); err == nil {
			base = fees[0]
		}
		return err
	})
	var he *feeestimate.HeightError
	switch {
	case errors.Is(err, feeestimate.ErrGraceInvalid):
		return "", jsonError(feeestimate.GraceInvalidText)
	case errors.As(err, &he):
		return "", jsonError(he.Error())
	case err != nil:
		return errStore, nil
	}
	w.uints("fees", fees)
	w.uint("estimated_base_fee", base)
	w.uint("fee_mask", mask)
	w.uint("size_scale", scale)
	w.uint("hard_fork_version", uint64(hf))
	return "", nil
}
