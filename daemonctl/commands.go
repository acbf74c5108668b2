package daemonctl

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/rpctypes"
)

type empty struct{}

// Answers whose rpctypes type carries the status: these give statusOf.
type (
	txsAnswer       rpctypes.GetTransactionsResponse
	poolStatsAnswer rpctypes.GetTransactionPoolStatsResponse
)

func (a *txsAnswer) status() string       { return a.Status }
func (a *poolStatsAnswer) status() string { return a.Status }

// limitAnswer is /get_limit's answer, which carries its status.
type limitAnswer rpctypes.GetLimitResponse

func (a *limitAnswer) status() string { return a.Status }

// infoAnswer and hardForkAnswer are get_info's and hard_fork_info's
// answers with their status.
type (
	infoAnswer struct {
		rpcStatus
		rpctypes.GetInfoResponse
	}
	hardForkAnswer struct {
		rpcStatus
		rpctypes.HardForkInfoResponse
	}
)

// miningAnswer is /mining_status' answer with its status.
type miningAnswer struct {
	rpcStatus
	rpctypes.MiningStatusResponse
}

// Status is `status`: get_info, hard_fork_info and mining_status in one
// line. A refused /mining_status (a restricted listener) prints its error
// and then "mining info unavailable" in the line, as monerod does.
func (x *Ctl) Status(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	const fail = "Problem fetching info"
	var ires infoAnswer
	if !x.path("/getinfo", empty{}, &ires, fail) {
		return true
	}
	var hf hardForkAnswer
	if !x.method("hard_fork_info", map[string]any{"version": 0}, &hf, fail) {
		return true
	}
	var m miningAnswer
	hasMining := x.path("/mining_status", empty{}, &m, fail)
	netHeight := max(ires.TargetHeight, ires.Height)
	bootstrap := ""
	if ires.WasBootstrapEverUsed {
		bootstrap = ", bootstrapping from " + ires.BootstrapDaemonAddress
		if ires.Untrusted {
			bootstrap += fmt.Sprintf(", local height: %d (%.1f%%)", ires.HeightWithoutBootstrap, syncPercentage(ires.HeightWithoutBootstrap, netHeight))
		} else {
			bootstrap += " was used before"
		}
	}
	mining := "not mining"
	switch {
	case !hasMining:
		mining = "mining info unavailable"
	case m.Status == "BUSY":
		mining = "syncing"
	case m.Active:
		mining = "mining at " + miningSpeed(new(big.Int).SetUint64(m.Speed))
		if m.IsBackgroundMiningEnabled {
			mining = "smart " + mining
		}
	}
	network := "mainnet"
	if ires.Testnet {
		network = "testnet"
	} else if ires.Stagenet {
		network = "stagenet"
	}
	s := fmt.Sprintf("Height: %d/%d (%.1f%%) on %s%s, %s, net hash %s, v%d%s, %d(out)+%d(in) connections",
		ires.Height, netHeight, syncPercentage(ires.Height, ires.TargetHeight), network, bootstrap, mining,
		miningSpeed(hashRate(ires.WideDifficulty, ires.Target)), hf.Version,
		forkExtraInfo(hf.EarliestHeight, netHeight, ires.Target), uint32(ires.OutgoingConnectionsCount), uint32(ires.IncomingConnectionsCount))
	// A restricted listener does not disclose the start time.
	if ires.StartTime != 0 {
		up := float64(x.now().Unix() - int64(ires.StartTime))
		s += fmt.Sprintf(", uptime %dd %dh %dm %ds", uint32(math.Floor(up/60/60/24)), uint32(math.Floor(math.Mod(up/60/60, 24))),
			uint32(math.Floor(math.Mod(up/60, 60))), uint32(math.Mod(up, 60)))
	}
	x.success(s)
	return true
}

// hashRate is difficulty / target in integers, as monerod divides its
// 128-bit difficulty.
func hashRate(wide string, target uint64) *big.Int {
	if target == 0 {
		return new(big.Int)
	}
	return new(big.Int).Quo(difficulty(wide), new(big.Int).SetUint64(target))
}

// Diff is `diff`.
func (x *Ctl) Diff(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	var r infoAnswer
	if !x.path("/getinfo", empty{}, &r, "Problem fetching info") {
		return true
	}
	x.success(fmt.Sprintf("BH: %d, TH: %s, DIFF: %s, CUM_DIFF: %s, HR: %s H/s", r.Height, r.TopBlockHash,
		difficulty(r.WideDifficulty), difficulty(r.WideCumulativeDifficulty), hashRate(r.WideDifficulty, r.Target)))
	return true
}

// PrintHeight is `print_height`.
func (x *Ctl) PrintHeight(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	var r struct {
		rpcStatus
		rpctypes.GetHeightResponse
	}
	if x.path("/getheight", empty{}, &r, "Unsuccessful") {
		x.success(strconv.FormatUint(r.Height, 10))
	}
	return true
}

// MiningStatus is `mining_status`. monerod's parser takes any arguments here.
func (x *Ctl) MiningStatus(args []string) bool {
	var m miningAnswer
	if !x.path("/mining_status", empty{}, &m, "Problem fetching info") {
		x.fail("Mining info unavailable")
		return true
	}
	busy := m.Status == "BUSY"
	if busy || !m.Active {
		x.msg("Not currently mining")
	} else {
		x.msg(fmt.Sprintf("Mining at %s with %d threads", miningSpeed(new(big.Int).SetUint64(m.Speed)), m.ThreadsCount))
	}
	x.msg("PoW algorithm: " + m.PowAlgorithm)
	if m.Active || m.IsBackgroundMiningEnabled {
		x.msg("Mining address: " + m.Address)
	}
	if m.IsBackgroundMiningEnabled {
		x.msg("Smart mining enabled:")
		x.msg(fmt.Sprintf("  Target: %d%% CPU", m.BgTarget))
		x.msg(fmt.Sprintf("  Idle threshold: %d%% CPU", m.BgIdleThreshold))
		x.msg(fmt.Sprintf("  Min idle time: %d seconds", m.BgMinIdleSeconds))
		x.msg("  Ignore battery: " + map[bool]string{true: "yes", false: "no"}[m.BgIgnoreBattery])
	}
	if !busy && m.Active && m.Speed > 0 && m.BlockTarget > 0 && m.Difficulty > 0 {
		ratio := float64(m.Speed) * float64(m.BlockTarget) / float64(m.Difficulty)
		perDay := uint64(86400) / uint64(m.BlockTarget)
		daily := uint64(float64(perDay*m.BlockReward) * ratio)
		monthly := uint64(float64(perDay) * 30.5 * float64(m.BlockReward) * ratio)
		yearly := uint64(float64(perDay*356*m.BlockReward) * ratio)
		x.msg("Expected: " + printMoney(daily) + " monero daily, " + printMoney(monthly) + " monero monthly, " + printMoney(yearly) + " yearly")
	}
	return true
}

// PrintCN is `print_cn`: the connections, in monerod's fixed-width columns.
func (x *Ctl) PrintCN(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	// monerod's connection_info also has ssl, which gonero does not
	// write (its connections are never SSL).
	var r struct {
		rpcStatus
		Connections []struct {
			rpctypes.ConnectionInfo
			SSL bool `json:"ssl"`
		} `json:"connections"`
	}
	if !x.method("get_connections", empty{}, &r, "Unsuccessful") {
		return true
	}
	// The host column fits the longest address (monerod 0.18.5; 0.18.0's
	// was 30 wide and showed ip:port): at least 15, else 8 more than it.
	hostWidth := 15
	for _, c := range r.Connections {
		hostWidth = max(hostWidth, 8+len(c.Address))
	}
	// The header's std::endl plus the writer's own newline leave an empty line.
	x.msg(setw("Remote Host", hostWidth) + setw("Type", 8) + setw("SSL", 6) + setw("Peer id", 20) + setw("Support Flags", 20) +
		setw("Recv/Sent (inactive,sec)", 30) + setw("State", 25) + setw("Livetime(sec)", 20) + setw("Down (kB/s)", 12) +
		setw("Down(now)", 14) + setw("Up (kB/s)", 10) + setw("Up(now)", 13) + "\n")
	types := map[uint64]string{1: "IPv4", 2: "IPv6", 3: "I2P", 4: "Tor"}
	for _, c := range r.Connections {
		addr := "OUT "
		if c.Incoming {
			addr = "INC "
		}
		addr += c.Address
		typ, ok := types[c.AddressType]
		if !ok {
			typ = "invalid"
		}
		line := setw(addr, hostWidth) + setw(typ, 8) + setw(map[bool]string{true: "yes", false: "no"}[c.SSL], 6) + setw(c.PeerID, 20) +
			setw(strconv.FormatUint(uint64(c.SupportFlags), 10), 20) +
			setw(fmt.Sprintf("%d(%d)/%d(%d)", c.RecvCount, c.RecvIdleTime, c.SendCount, c.SendIdleTime), 30) +
			setw(c.State, 25) + setw(strconv.FormatUint(c.LiveTime, 10), 20) + setw(strconv.FormatUint(c.AvgDownload, 10), 12) +
			setw(strconv.FormatUint(c.CurrentDownload, 10), 14) + setw(strconv.FormatUint(c.AvgUpload, 10), 10) +
			setw(strconv.FormatUint(c.CurrentUpload, 10), 13)
		if c.Localhost {
			line += "[LOCALHOST]"
		}
		if c.LocalIP {
			line += "[LAN]"
		}
		x.msg(line)
	}
	return true
}

// PrintNetStats is `print_net_stats`.
func (x *Ctl) PrintNetStats(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	var ns struct {
		rpcStatus
		rpctypes.GetNetStatsResponse
	}
	var lim limitAnswer
	if !x.path("/get_net_stats", empty{}, &ns, "Unsuccessful") || !x.path("/get_limit", empty{}, &lim, "Unsuccessful") {
		return true
	}
	seconds := uint64(x.now().Unix()) - ns.StartTime
	line := func(verb string, bytes, packets, limitKB uint64) {
		var average uint64
		if seconds > 0 {
			average = bytes / seconds
		}
		limit := limitKB * 1024
		percent := float64(average) / float64(limit) * 100
		x.success(fmt.Sprintf("%s %d bytes (%s) in %d packets in %s, average %s/s = %.2f%% of the limit of %s/s", verb, bytes, humanBytes(bytes),
			packets, humanTimespan(seconds), humanBytes(average), percent, humanBytes(limit)))
	}
	line("Received", ns.TotalBytesIn, ns.TotalPacketsIn, uint64(lim.LimitDown))
	line("Sent", ns.TotalBytesOut, ns.TotalPacketsOut, uint64(lim.LimitUp))
	return true
}

// PrintBlock is `print_block <hash>|<height> [+hex]`.
func (x *Ctl) PrintBlock(args []string) bool {
	hexToo := false
	for _, a := range args[min(1, len(args)):] {
		if a != "+hex" {
			x.invalid("Unexpected parameter: " + a)
			return true
		}
		hexToo = true
	}
	if len(args) == 0 {
		x.invalid("At least one parameter expected")
		return true
	}
	params := map[string]any{"fill_pow_hash": true}
	if h, err := strconv.ParseUint(args[0], 10, 64); err == nil {
		params["height"] = h
	} else if x.isHash(args[0]) {
		params["hash"] = args[0]
	} else {
		return true
	}
	var r struct {
		rpcStatus
		rpctypes.GetBlockResponse
	}
	if !x.method("getblock", params, &r, "Unsuccessful") {
		return true
	}
	if hexToo {
		x.success(r.Blob + "\n")
	}
	h := r.BlockHeader
	orphan := "0"
	if h.OrphanStatus {
		orphan = "1"
	}
	x.success(fmt.Sprintf("timestamp: %d (%s)\nprevious hash: %s\nnonce: %d\nis orphan: %s\nheight: %d\ndepth: %d\nhash: %s\n"+
		"difficulty: %s\ncumulative difficulty: %s\nPOW hash: %s\nblock size: %d\nblock weight: %d\nlong term weight: %d\n"+
		"num txes: %d\nreward: %s\nminer tx hash: %s", h.Timestamp, humanTimestamp(h.Timestamp), h.PrevHash, h.Nonce, orphan,
		h.Height, h.Depth, h.Hash, difficulty(h.WideDifficulty), difficulty(h.WideCumulativeDifficulty), h.PowHash, h.BlockSize,
		h.BlockWeight, h.LongTermWeight, h.NumTxes, printMoney(h.Reward), h.MinerTxHash))
	x.success(r.JSON + "\n")
	return true
}

// emptyHash is cn_fast_hash of nothing: the prunable hash of a transaction
// with nothing prunable.
const emptyHash = "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"

// PrintTx is `print_tx <hash> [+hex] [+json]` (and monerod's unlisted +meta).
// For +json it asks the daemon for decode_as_json, which is the same
// obj_to_json_str monerod's client computes itself.
func (x *Ctl) PrintTx(args []string) bool {
	var meta, hexToo, jsonToo bool
	for _, a := range args[min(1, len(args)):] {
		switch a {
		case "+meta":
			meta = true
		case "+hex":
			hexToo = true
		case "+json":
			jsonToo = true
		default:
			x.invalid("Unexpected parameter: " + a)
			return true
		}
	}
	if len(args) == 0 {
		x.invalid("At least one parameter expected")
		return true
	}
	if !x.isHash(args[0]) {
		return true
	}
	var r rpctypes.GetTransactionsResponse
	req := map[string]any{"txs_hashes": []string{args[0]}, "decode_as_json": jsonToo, "split": true, "prune": false}
	if !x.path("/gettransactions", req, (*txsAnswer)(&r), "Problem fetching transaction") {
		return true
	}
	if len(r.Txs) != 1 && len(r.TxsAsHex) != 1 {
		// The hash is printed as monerod prints a crypto::hash: "<hex>".
		x.fail("Transaction wasn't found: <" + strings.ToLower(args[0]) + ">\n")
		return true
	}
	var asHex, prunedHex, prunableHex, asJSON string
	if len(r.Txs) == 1 {
		t := r.Txs[0]
		pruned := t.PrunableAsHex == "" && t.PrunableHash != strings.Repeat("0", 64) && t.PrunableHash != emptyHash
		if t.InPool {
			x.success("Found in pool")
		} else {
			suffix := ""
			if pruned {
				suffix = " (pruned)"
			}
			x.success(fmt.Sprintf("Found in blockchain at height %d%s", t.BlockHeight, suffix))
		}
		asHex, prunedHex, prunableHex, asJSON = t.AsHex, t.PrunedAsHex, t.PrunableAsHex, t.AsJSON
	} else {
		asHex = r.TxsAsHex[0]
	}
	if meta && len(r.Txs) == 1 {
		if !r.Txs[0].InPool {
			ts := r.Txs[0].BlockTimestamp
			x.msg(fmt.Sprintf("Block timestamp: %d (%s)", ts, humanTimestamp(ts)))
		}
		if blob, err := hex.DecodeString(prunedHex + prunableHex); err != nil {
			x.fail("Error parsing transaction from hex")
		} else if tx, err := cryptonote.ParseTransaction(blob); err != nil {
			x.fail("Error parsing transaction blob")
		} else {
			x.msg(fmt.Sprintf("Size: %d", len(blob)))
			x.msg(fmt.Sprintf("Weight: %d", tx.Weight(len(blob))))
		}
	}
	if hexToo {
		if asHex != "" {
			x.success(asHex + "\n")
		} else {
			x.success(prunedHex + prunableHex + "\n")
		}
	}
	if jsonToo {
		if asJSON == "" {
			x.fail("Failed to parse tx blob to get json format")
		} else {
			x.success(asJSON + "\n")
		}
	}
	return true
}

func tf(b bool) string {
	if b {
		return "T"
	}
	return "F"
}

// PrintPool is `print_pool`, the long format.
func (x *Ctl) PrintPool(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	var r struct {
		rpcStatus
		rpctypes.GetTransactionPoolResponse
	}
	if !x.path("/get_transaction_pool", empty{}, &r, "Problem fetching transaction pool") {
		return true
	}
	if len(r.Transactions) == 0 && len(r.SpentKeyImages) == 0 {
		x.msg("Pool is empty\n")
	}
	if len(r.Transactions) > 0 {
		now := x.now().Unix()
		x.msg("Transactions: ")
		for _, t := range r.Transactions {
			relayed := "no"
			if t.Relayed {
				// monerod passes these as time_t: 2^64-1 (a transaction
				// back from a popped block) is -1 there.
				relayed = fmt.Sprintf("%d (%s)", t.LastRelayedTime, humanTimeAgo(int64(t.LastRelayedTime), now))
			}
			var feePerByte uint64
			if t.Weight > 0 {
				// monerod hands a double to print_money, which takes an integer.
				feePerByte = uint64(float64(t.Fee) / float64(t.Weight))
			}
			x.msg(fmt.Sprintf("id: %s\n%s\nblob_size: %d\nweight: %d\nfee: %s\nfee/byte: %s\nreceive_time: %d (%s)\nrelayed: %s\n"+
				"do_not_relay: %s\nkept_by_block: %s\ndouble_spend_seen: %s\nmax_used_block_height: %d\nmax_used_block_id: %s\n"+
				"last_failed_height: %d\nlast_failed_id: %s\n", t.IDHash, t.TxJSON, t.BlobSize, t.Weight, printMoney(t.Fee),
				printMoney(feePerByte), t.ReceiveTime, humanTimeAgo(int64(t.ReceiveTime), now), relayed, tf(t.DoNotRelay), tf(t.KeptByBlock),
				tf(t.DoubleSpendSeen), t.MaxUsedBlockHeight, t.MaxUsedBlockIDHash, t.LastFailedHeight, t.LastFailedIDHash))
		}
		if len(r.SpentKeyImages) == 0 {
			x.msg("WARNING: Inconsistent pool state - no spent key images")
		}
	}
	if len(r.SpentKeyImages) > 0 {
		x.msg("")
		x.msg("Spent key images: ")
		for _, k := range r.SpentKeyImages {
			x.msg("key image: " + k.IDHash)
			switch len(k.TxsHashes) {
			case 1:
				x.msg("  tx: " + k.TxsHashes[0])
			case 0:
				x.msg("  WARNING: spent key image has no txs associated")
			default:
				x.msg(fmt.Sprintf("  NOTE: key image for multiple txs: %d", len(k.TxsHashes)))
				for _, h := range k.TxsHashes {
					x.msg("  tx: " + h)
				}
			}
		}
		if len(r.Transactions) == 0 {
			x.msg("WARNING: Inconsistent pool state - no transactions")
		}
	}
	return true
}

// PrintPoolStats is `print_pool_stats`.
func (x *Ctl) PrintPoolStats(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	var r poolStatsAnswer
	const fail = "Problem fetching transaction pool stats"
	if !x.path("/get_transaction_pool_stats", empty{}, &r, fail) {
		return true
	}
	var ires infoAnswer
	if !x.path("/getinfo", empty{}, &ires, fail) {
		return true
	}
	s := r.PoolStats
	n := uint64(s.TxsTotal)
	now := uint64(x.now().Unix())
	var avg, avgFee, perByte uint64
	if n > 0 {
		avg, avgFee = s.BytesTotal/n, s.FeeTotal/n
	}
	if s.BytesTotal > 0 {
		perByte = s.FeeTotal / s.BytesTotal
	}
	backlog := "no backlog"
	if zone := ires.BlockWeightLimit / 2; s.BytesTotal > zone && zone > 0 {
		b := (s.BytesTotal + zone - 1) / zone
		backlog = fmt.Sprintf("estimated %d block (%d minutes) backlog", b, b*difficultyTargetV2/60)
	}
	oldest := "-"
	if s.Oldest != 0 {
		oldest = humanTimeAgo(int64(s.Oldest), int64(now))
	}
	x.msg(fmt.Sprintf("%d tx(es), %d bytes total (min %d, max %d, avg %d, median %d)\nfees %s (avg %s per tx, %s per byte)\n"+
		"%d double spends, %d not relayed, %d failing, %d older than 10 minutes (oldest %s), %s", n, s.BytesTotal, s.BytesMin,
		s.BytesMax, avg, s.BytesMed, printMoney(s.FeeTotal), printMoney(avgFee), printMoney(perByte), s.NumDoubleSpends, s.NumNotRelayed,
		s.NumFailing, s.Num10m, oldest, backlog))
	if n > 1 && len(s.Histo) > 0 {
		k := uint64(len(s.Histo))
		times := make([]uint64, k)
		if s.Histo98pc != 0 {
			for i := uint64(0); i < k-1; i++ {
				times[i] = i * s.Histo98pc / (k - 1)
			}
			times[k-1] = now - s.Oldest
		} else {
			for i := uint64(0); i < k; i++ {
				times[i] = i * (now - s.Oldest) / k
			}
		}
		x.msg("   Age      Txes       Bytes")
		for i, h := range s.Histo {
			x.msg(fmt.Sprintf("%s%8d%12d", timeHMS(times[i]), h.Txs, h.Bytes))
		}
	}
	x.msg("")
	return true
}

// difficultyTargetV2 is DIFFICULTY_TARGET_V2, the block time monerod's
// backlog estimate uses whatever the network.
const difficultyTargetV2 = 120

// SyncInfo is `sync_info`.
func (x *Ctl) SyncInfo(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	var r struct {
		rpcStatus
		rpctypes.SyncInfoResponse
	}
	if !x.method("sync_info", empty{}, &r, "Unsuccessful") {
		return true
	}
	target := max(r.TargetHeight, r.Height)
	pc := 0.0
	if target > 0 {
		pc = 100 * float64(r.Height) / float64(target)
	}
	x.success(fmt.Sprintf("Height: %d, target: %d (%s%%)", r.Height, target, streamFloat(pc)))
	var download uint64
	for _, p := range r.Peers {
		download += p.Info.CurrentDownload
	}
	x.success(fmt.Sprintf("Downloading at %d kB/s", download))
	if r.NextNeededPruningSeed != 0 {
		x.success(fmt.Sprintf("Next needed pruning seed: %d", r.NextNeededPruningSeed))
	}
	x.success(fmt.Sprintf("%d peers", len(r.Peers)))
	x.success("Remote Host                        Peer_ID   State   Prune_Seed          Height  DL kB/s, Queued Blocks / MB")
	for _, p := range r.Peers {
		var nblocks, size uint64
		for _, s := range r.Spans {
			if s.ConnectionID == p.Info.ConnectionID {
				nblocks, size = nblocks+s.NBlocks, size+s.Size
			}
		}
		x.success(fmt.Sprintf("%s  %s  %s  %s  %d  %d kB/s, %d blocks / %s MB queued", padRight(p.Info.Address, 24), p.Info.PeerID,
			padRight(p.Info.State, 16), padRight(strconv.FormatUint(uint64(p.Info.PruningSeed), 16), 8), p.Info.Height,
			p.Info.CurrentDownload, nblocks, streamFloat(float64(size)/1e6)))
	}
	var total uint64
	for _, s := range r.Spans {
		total += s.Size
	}
	x.success(fmt.Sprintf("%d spans, %s MB", len(r.Spans), streamFloat(float64(total)/1e6)))
	x.success(r.Overview)
	for _, s := range r.Spans {
		seed := strconv.FormatUint(uint64(pruningSeed(s.StartBlockHeight)), 16)
		first := fmt.Sprintf("%s  %d/%s (%d - %d", padRight(s.RemoteAddress, 24), s.NBlocks, seed, s.StartBlockHeight, s.StartBlockHeight+s.NBlocks-1)
		if s.Size == 0 {
			x.success(first + ")  -")
		} else {
			x.success(fmt.Sprintf("%s, %d kB)  %d kB/s (%s)", first, uint64(float64(s.Size)/1e3), uint32(float64(s.Rate)/1e3),
				streamFloat(float64(float32(s.Speed)/100))))
		}
	}
	return true
}

// pruningSeed is tools::get_pruning_seed(height, max uint64, 3): the seed
// whose stripe holds height (stripe size 4096 blocks, 8 stripes): the log
// of the stripe count in bits 7 and up, the stripe less one below.
func pruningSeed(height uint64) uint32 {
	const logStripes, stripeSize = 3, 4096
	stripe := (height/stripeSize)&((1<<logStripes)-1) + 1
	return uint32(logStripes<<7 | (stripe - 1))
}

// HardForkInfo is `hard_fork_info [<version>]`.
func (x *Ctl) HardForkInfo(args []string) bool {
	version := 0
	switch len(args) {
	case 0:
	case 1:
		v, ok := stoi(args[0])
		if !ok {
			x.invalid("Failed to parse version number")
			return true
		}
		if v <= 0 || v > 255 {
			x.invalid("Unknown version number. Must be between 0 and 255")
			return true
		}
		version = v
	default:
		x.invalid("Too many parameters")
		return true
	}
	var r hardForkAnswer
	if !x.method("hard_fork_info", map[string]any{"version": version}, &r, "Unsuccessful") {
		return true
	}
	if version == 0 {
		version = int(r.Voting)
	}
	enabled := "not enabled"
	if r.Enabled {
		enabled = "enabled"
	}
	x.msg(fmt.Sprintf("version %d %s, %d/%d votes, threshold %d", version, enabled, r.Votes, r.Window, r.Threshold))
	x.msg(fmt.Sprintf("current version %d, voting for version %d", r.Version, r.Voting))
	return true
}

// stoi is std::stoi: optional blanks and sign, then digits, the rest
// ignored; no digits or out of int range fails.
func stoi(s string) (int, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, false
	}
	v, err := strconv.ParseInt(s[:j], 10, 32)
	if err != nil {
		return 0, false
	}
	return int(v), true
}

// Bans is `bans`.
func (x *Ctl) Bans(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	var r struct {
		rpcStatus
		rpctypes.GetBansResponse
	}
	if !x.method("get_bans", empty{}, &r, "Unsuccessful") {
		return true
	}
	if len(r.Bans) == 0 {
		x.msg("No IPs are banned")
	}
	for _, b := range r.Bans {
		x.msg(fmt.Sprintf("%s banned for %d seconds", b.Host, b.Seconds))
	}
	return true
}

// p2pIPBlockTime is P2P_IP_BLOCKTIME, ban's default: one day.
const p2pIPBlockTime = 60 * 60 * 24

// Ban is `ban <IP> [<seconds>]` or `ban @<filename> [<seconds>]`. It
// prints nothing when the ban is set, as monerod.
func (x *Ctl) Ban(args []string) bool {
	if len(args) != 1 && len(args) != 2 {
		x.invalid("Expects one or two parameters")
		return true
	}
	seconds := p2pIPBlockTime
	if len(args) > 1 {
		v, ok := stoi(args[1])
		if !ok {
			x.invalid("Failed to parse seconds")
			return true
		}
		if v == 0 {
			x.msg("Seconds must be greater than 0.")
			return true
		}
		seconds = v
	}
	if file, ok := strings.CutPrefix(args[0], "@"); ok {
		x.banFile(file, seconds)
		return true
	}
	x.setBan(args[0], true, seconds)
	return true
}

// banFile is `ban @<filename>`: the file, on the client's machine, read as
// monerod's client reads it (command_parser_executor.cpp) — what follows
// '#' a comment, blanks trimmed, empty lines skipped, each line an IPv4
// subnet (banned masked, "a.b.c.0/24") or a host (an IP address, a port
// allowed), one set_bans each; a line that is neither is named and
// skipped. monerod also takes the IPv4 forms inet_addr reads ("1.2.3") and
// Tor and I2P addresses, which its daemon then refuses to ban; here they
// are lines that are neither. A file that cannot be read (a directory)
// bans nothing, silently, as monerod's ifstream.
func (x *Ctl) banFile(file string, seconds int) {
	if _, err := os.Stat(file); err != nil {
		// boost::filesystem::exists and the error's strerror text.
		why := "No such file or directory"
		var errno syscall.Errno
		if errors.As(err, &errno) && errno != syscall.ENOENT {
			why = errno.Error()
			why = strings.ToUpper(why[:1]) + why[1:]
		}
		x.msg("Can't find ban list file " + file + " - " + why)
		return
	}
	f, err := os.Open(file)
	if err != nil {
		return
	}
	defer f.Close()
	_ = peerinfo.BanListEntries(f, func(_ int, entry string) bool {
		if p, ok := peerinfo.ParseIPv4Subnet(entry); ok {
			x.setBan(p.Masked().String(), true, seconds)
		} else if a, ok := peerinfo.ParseHost(entry); ok {
			x.setBan(a.String(), true, seconds)
		} else {
			x.msg("Invalid IP address or IPv4 subnet: " + entry)
		}
		return true
	})
}

// setBan sends one set_bans entry. monerod sends seconds as its time_t, so
// a negative count goes out as is.
func (x *Ctl) setBan(host string, ban bool, seconds int) {
	var r rpcStatus
	req := map[string]any{"bans": []map[string]any{{"host": host, "ip": 0, "ban": ban, "seconds": seconds}}}
	x.method("set_bans", req, &r, "Unsuccessful")
}

// Unban is `unban <address>`; silent on success, as monerod.
func (x *Ctl) Unban(args []string) bool {
	if len(args) != 1 {
		x.invalid("One parameter expected")
		return true
	}
	x.setBan(args[0], false, 0)
	return true
}

// FlushTxpool is `flush_txpool [<txid>]`.
func (x *Ctl) FlushTxpool(args []string) bool {
	if len(args) > 1 {
		x.invalid("Too many parameters")
		return true
	}
	txids := []string{}
	if len(args) == 1 {
		if !x.isHash(args[0]) {
			x.invalid("Failed to parse tx id")
			return true
		}
		txids = append(txids, args[0])
	}
	var r rpcStatus
	if x.method("flush_txpool", map[string]any{"txids": txids}, &r, "Unsuccessful") {
		x.success("Pool successfully flushed")
	}
	return true
}

// isYes and isNo are command_line::is_yes / is_no (untranslated).
func isYes(s string) bool { return s == "y" || s == "Y" || strings.EqualFold(s, "yes") }
func isNo(s string) bool  { return s == "n" || s == "N" || strings.EqualFold(s, "no") }

// StartMining is `start_mining <addr> [<threads>|auto] [do_background_mining] [ignore_battery]`.
// Like monerod it takes an address of any network (warning for testnet
// and stagenet) and sends the standard address, dropping an integrated
// address's payment id; OpenAlias names are not looked up (gonerod's
// client does no DNS), so they are "wrong format".
func (x *Ctl) StartMining(args []string) bool {
	if len(args) == 0 {
		x.invalid("At least one parameter expected")
		return true
	}
	a, err := address.Parse(args[0])
	if err != nil {
		x.logError("wrong address: " + args[0])
		x.invalid("Target account address has wrong format")
		return true
	}
	if a.Kind == address.Subaddress {
		x.fail("subaddress for mining reward is not yet supported!\n")
		return true
	}
	if a.Network != params.Mainnet {
		x.msg("Mining to a " + a.Network.String() + " address, make sure this is intentional!")
	}
	if len(args) > 4 {
		x.invalid("Too many parameters")
		return true
	}
	flag := func(s string) (bool, bool) {
		switch {
		case s == "true" || isYes(s) || s == "1":
			return true, true
		case s == "false" || isNo(s) || s == "0":
			return false, true
		}
		return false, false
	}
	var background, ignoreBattery bool
	if len(args) == 4 {
		v, ok := flag(args[3])
		if !ok {
			x.invalid("Invalid combination of parameters")
			return true
		}
		ignoreBattery = v
	}
	if len(args) >= 3 {
		v, ok := flag(args[2])
		if !ok {
			x.invalid("Invalid combination of parameters")
			return true
		}
		background = v
	}
	threads := uint64(1)
	if len(args) >= 2 {
		if args[1] == "auto" || args[1] == "autodetect" {
			threads = 0
		} else if t, err := strconv.ParseUint(args[1], 10, 64); err == nil && t > 0 {
			threads = t
		}
	}
	a.Kind, a.PaymentID = address.Standard, [8]byte{}
	var r rpcStatus
	req := map[string]any{"miner_address": a.String(), "threads_count": threads, "do_background_mining": background, "ignore_battery": ignoreBattery}
	if x.path("/start_mining", req, &r, "Mining did not start") {
		x.success("Mining started")
	}
	return true
}

// StopMining is `stop_mining`.
func (x *Ctl) StopMining(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	var r rpcStatus
	if x.path("/stop_mining", empty{}, &r, "Mining did not stop") {
		x.success("Mining stopped")
	}
	return true
}

// PopBlocks is `pop_blocks <nblocks>`.
func (x *Ctl) PopBlocks(args []string) bool {
	if len(args) != 1 {
		x.invalid("One parameter expected")
		return true
	}
	n, err := strconv.ParseUint(args[0], 10, 64)
	if err != nil {
		x.invalid("Number of blocks must be a number greater than 0")
		return true
	}
	if n < 1 {
		x.invalid("Number of blocks must be greater than 0")
		return true
	}
	var r struct {
		rpcStatus
		Height uint64 `json:"height"`
	}
	if x.path("/pop_blocks", map[string]any{"nblocks": n}, &r, "pop_blocks failed") {
		x.success(fmt.Sprintf("new height: %d", r.Height))
	}
	return true
}

// StopDaemon is `exit` and `stop_daemon`.
func (x *Ctl) StopDaemon(args []string) bool {
	if !x.noArgs(args) {
		return true
	}
	var r rpcStatus
	if x.path("/stop_daemon", empty{}, &r, "Daemon did not stop") {
		x.success("Stop signal sent")
	}
	return true
}
