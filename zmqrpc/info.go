package zmqrpc

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
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

// Fee estimate constants (cryptonote_config.h).
const (
	blockRewardOverestimate = 10_000_000_000_000
	rewardBlocksWindow      = 100 // CRYPTONOTE_REWARD_BLOCKS_WINDOW
)

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
	hf := net.VersionAt(height)
	if hf < consensus.VersionPerByteFee {
		// Forks 1-7 exist on no chain a v0.18 node starts from but a
		// test one; gonero does not estimate the per-kB fee there.
		return "gonero does not estimate fees before hard fork 8", nil
	}
	if grace > rewardBlocksWindow {
		return "", jsonError("Grace blocks invalid In 2021 fee scaling estimate.")
	}
	if grace == rewardBlocksWindow && height > 0 {
		// get_last_n_blocks_weights(0) reads from the height past the
		// top: BlockchainLMDB throws BLOCK_DNE, and the handler answers
		// its text as malformed JSON.
		return "", jsonError(fmt.Sprintf("Height %d not in blockchain", height))
	}
	// get_block_reward at get_current_hard_fork_version, the version
	// answered: on a chain of the genesis block alone already the next
	// block's (regtest: 16, not the genesis block's 1).
	version := hf
	generated := next.Top.GeneratedCoins
	if height == 0 {
		generated = 0
	}
	baseReward, rerr := consensus.BlockReward(consensus.BlockWeightLimit(next.EffectiveMedian)/2, 1, generated, version)
	if rerr != nil {
		baseReward = blockRewardOverestimate
	}
	var fees []uint64
	err = s.chain.View(func(r *chaindb.Reader) error {
		mlw := uint64(consensus.FullRewardZoneV5)
		if next.LongTermEffectiveMedian > consensus.FullRewardZoneV5 {
			first := height - min(height, consensus.LongTermBlockWeightWindow)
			metas, err := r.MetasInRange(first, height)
			if err != nil {
				return err
			}
			weights := make([]uint64, 0, len(metas)+int(grace))
			for i := range metas {
				weights = append(weights, metas[i].LongTermWeight)
			}
			for i := uint64(0); i < grace; i++ {
				weights = append(weights, 0)
			}
			if len(weights) > consensus.LongTermBlockWeightWindow {
				weights = weights[len(weights)-consensus.LongTermBlockWeightWindow:]
			}
			mlw = max(consensus.Median(weights), consensus.FullRewardZoneV5)
		}
		n := rewardBlocksWindow - grace
		metas, err := r.MetasInRange(height-min(height, n), height)
		if err != nil {
			return err
		}
		weights := make([]uint64, 0, rewardBlocksWindow)
		for i := range metas {
			weights = append(weights, metas[i].Weight)
		}
		for i := uint64(0); i < grace; i++ {
			weights = append(weights, 0)
		}
		msw := max(consensus.Median(weights), mlw)
		fees = fees2021(baseReward, min(msw, 50*mlw), mlw)
		return nil
	})
	if err != nil {
		return errStore, nil
	}
	w.uints("fees", fees)
	w.uint("estimated_base_fee", fees[0])
	w.uint("fee_mask", consensus.FeeQuantizationMask)
	w.uint("size_scale", 1)
	w.uint("hard_fork_version", uint64(hf))
	return "", nil
}

// fees2021 is get_dynamic_base_fee_estimate_2021_scaling's arithmetic
// (uint64, wrapping as monerod's does), each level rounded up to two
// significant digits.
func fees2021(baseReward, mnw, mlw uint64) []uint64 {
	const ref = consensus.DynamicFeeReferenceTxWeight
	const zone = consensus.FullRewardZoneV5
	mfw := min(mnw, mlw)
	fl := baseReward * ref / (mfw * mfw)
	fn := 4 * baseReward * ref / (mfw * mfw)
	fm := 16 * baseReward * ref / (zone * mfw)
	fh := max(4*fm, 4*fm*mfw/(32*ref*mnw/zone))
	return []uint64{roundMoneyUp(fl), roundMoneyUp(fn), roundMoneyUp(fm), roundMoneyUp(fh)}
}

// roundMoneyUp is round_money_up(amount, 2): any non-zero digit after the
// first two bumps the second up (with carry).
func roundMoneyUp(amount uint64) uint64 {
	s := []byte(strconv.FormatUint(amount, 10))
	if len(s) <= 2 {
		return amount
	}
	bump := false
	for i := 2; i < len(s); i++ {
		if s[i] != '0' {
			bump = true
			s[i] = '0'
		}
	}
	for i := 1; bump && i >= 0; i-- {
		if s[i] == '9' {
			s[i] = '0'
		} else {
			s[i]++
			bump = false
		}
	}
	if bump {
		s = append([]byte{'1'}, s...)
	}
	var v uint64
	for _, d := range s {
		v = v*10 + uint64(d-'0')
	}
	return v
}
