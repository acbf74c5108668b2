package rpctypes

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/internal/u128"
)

// writeJSON is what an answer's writer prints.
func writeJSON(write func(*epeejson.Writer)) []byte {
	w := epeejson.NewWriter(nil)
	write(w)
	return w.Bytes()
}

// roundTrip writes an answer with its writer and reads it back into a
// value of the same type with encoding/json (as daemonctl does): the
// writer prints every member a client reads, under the name the type's
// tag gives it, and the output is epee JSON.
func roundTrip[T any](t *testing.T, name string, in *T, write func(*T, *epeejson.Writer)) {
	t.Helper()
	b := writeJSON(func(w *epeejson.Writer) { write(in, w) })
	if _, err := epeejson.Parse(b); err != nil {
		t.Fatalf("%s: the answer is not epee JSON: %v\n%s", name, err, b)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, b)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("%s: wrote %+v, read back %+v\n%s", name, *in, *out, b)
	}
}

func TestAnswersRoundTrip(t *testing.T) {
	h := "9c5e2ecae27bf24a6579310a1a6bf259cca359dc56938587105727dc0925dd21"
	info := TxInfo{IDHash: h, TxJSON: `{"version": 2}`, BlobSize: 1500, Weight: 1500, Fee: 30_000_000, MaxUsedBlockIDHash: h,
		MaxUsedBlockHeight: 99, KeptByBlock: true, LastFailedHeight: 7, LastFailedIDHash: h, ReceiveTime: 1_700_000_000,
		Relayed: true, LastRelayedTime: 1<<64 - 1, DoNotRelay: true, DoubleSpendSeen: true, TxBlobHex: "0200"}
	roundTrip(t, "tx_info", &info, (*TxInfo).Write)
	pool := GetTransactionPoolResponse{Transactions: []TxInfo{info, {IDHash: h}},
		SpentKeyImages: []SpentKeyImageInfo{{IDHash: h, TxsHashes: []string{h, h}}}}
	roundTrip(t, "get_transaction_pool", &pool, (*GetTransactionPoolResponse).Write)
	stats := GetTransactionPoolStatsResponse{Status: StatusOK, PoolStats: TxpoolStats{BytesTotal: 3000, BytesMin: 1000,
		BytesMax: 2000, BytesMed: 1500, FeeTotal: 9, Oldest: 1_700_000_000, TxsTotal: 2, NumFailing: 1, Num10m: 1,
		NumNotRelayed: 1, Histo98pc: 40, Histo: []TxpoolHisto{{Txs: 1, Bytes: 1000}, {Txs: 1, Bytes: 2000}}, NumDoubleSpends: 1}}
	roundTrip(t, "get_transaction_pool_stats", &stats, func(r *GetTransactionPoolStatsResponse, w *epeejson.Writer) {
		WritePoolStats(w, &r.PoolStats)
	})

	mined := TxEntry{TxHash: h, PrunedAsHex: "02", PrunableAsHex: "ff", PrunableHash: h, AsJSON: "{}", BlockHeight: 5,
		Confirmations: 3, BlockTimestamp: 1_700_000_000, OutputIndices: []uint64{0, 1 << 40}}
	inPool := TxEntry{TxHash: h, AsHex: "0200ff", InPool: true, DoubleSpendSeen: true, Relayed: true, ReceivedTimestamp: 9}
	txs := GetTransactionsResponse{Status: StatusOK, Txs: []TxEntry{mined, inPool}, MissedTx: []string{h},
		TxsAsHex: []string{"", "0200ff"}, TxsAsJSON: []string{"{}", ""}, WithJSON: true}
	got := new(GetTransactionsResponse)
	b := writeJSON(txs.Write)
	if err := json.Unmarshal(b, got); err != nil {
		t.Fatal(err)
	}
	got.WithJSON = true // not a member: the request's decode_as_json
	if !reflect.DeepEqual(&txs, got) {
		t.Fatalf("gettransactions: wrote %+v, read back %+v\n%s", txs, *got, b)
	}
	refused := GetTransactionsResponse{Status: "Failed", Txs: txs.Txs, OnlyStatus: true}
	var compact bytes.Buffer
	if err := json.Compact(&compact, writeJSON(refused.Write)); err != nil || compact.String() != `{"credits":0,"status":"Failed","top_hash":"","untrusted":false}` {
		t.Fatalf("a refusal is %s (%v)", compact.Bytes(), err)
	}
	spent := IsKeyImageSpentResponse{Status: StatusOK, SpentStatus: []uint64{KeyImageUnspent, KeyImageInChain, KeyImageInPool}}
	roundTrip(t, "is_key_image_spent", &spent, (*IsKeyImageSpentResponse).Write)

	mining := MiningStatusResponse{Active: true, Address: "4A", BgIdleThreshold: 90, BgIgnoreBattery: true, BgMinIdleSeconds: 10,
		BgTarget: 40, BlockReward: 600_000_000_000, BlockTarget: 120, IsBackgroundMiningEnabled: true, PowAlgorithm: "RandomX",
		Speed: 1000, ThreadsCount: 2}
	mining.SetDifficulty(u128.U128{Hi: 1, Lo: 2})
	if mining.WideDifficulty != "0x10000000000000002" {
		t.Fatalf("wide difficulty %s", mining.WideDifficulty)
	}
	roundTrip(t, "mining_status", &mining, (*MiningStatusResponse).Write)
	getInfo := GetInfoResponse{AdjustedTime: 1, AltBlocksCount: 2, BlockSizeLimit: 600_000, BlockSizeMedian: 300_000,
		BlockWeightLimit: 600_000, BlockWeightMedian: 300_000, BusySyncing: true, CumulativeDifficulty: 3,
		CumulativeDifficultyTop64: 4, DatabaseSize: 5, Difficulty: 6, DifficultyTop64: 7, FreeSpace: 1<<64 - 1,
		GreyPeerlistSize: 8, Height: 9, HeightWithoutBootstrap: 9, IncomingConnectionsCount: 10, Mainnet: true,
		Nettype: "mainnet", Offline: true, OutgoingConnectionsCount: 11, Restricted: true, RPCConnectionsCount: 12,
		StartTime: 13, Synchronized: true, Target: 120, TargetHeight: 14, TopBlockHash: h, TxCount: 15, TxPoolSize: 16,
		Version: "0.18.5.3-gonero", WhitePeerlistSize: 17, WideCumulativeDifficulty: "0x40000000000000003",
		WideDifficulty: "0x70000000000000006"}
	roundTrip(t, "get_info", &getInfo, (*GetInfoResponse).Write)
	noMedian := GetInfoResponse{Nettype: "regtest"}
	roundTrip(t, "get_info without a median", &noMedian, (*GetInfoResponse).Write)
	version := GetVersionResponse{CurrentHeight: 3, HardForks: []HardForkEntry{{Height: 1, HFVersion: 1}, {Height: 2, HFVersion: 16}},
		TargetHeight: 4, Version: CoreRPCVersion}
	roundTrip(t, "get_version", &version, (*GetVersionResponse).Write)
	hf := HardForkInfoResponse{EarliestHeight: 1<<64 - 1, Enabled: true, State: 2, Version: 16, Votes: 10080, Voting: 16, Window: 10080}
	roundTrip(t, "hard_fork_info", &hf, (*HardForkInfoResponse).Write)
	conn := ConnectionInfo{Address: "1.2.3.4:18080", AddressType: 1, AvgDownload: 1, AvgUpload: 2, ConnectionID: "ab",
		CurrentDownload: 3, CurrentUpload: 4, Height: 5, Host: "1.2.3.4", Incoming: true, IP: "1.2.3.4", LiveTime: 6,
		LocalIP: true, Localhost: true, PeerID: "0011", Port: "18080", PruningSeed: 0x181, RecvCount: 7, RecvIdleTime: 8,
		RPCCreditsPerHash: 9, RPCPort: 18081, SendCount: 10, SendIdleTime: 11, State: "normal", SupportFlags: 1}
	conns := GetConnectionsResponse{Connections: []ConnectionInfo{conn, {State: "before_handshake"}}}
	roundTrip(t, "get_connections", &conns, (*GetConnectionsResponse).Write)
	sync := SyncInfoResponse{Height: 5, NextNeededPruningSeed: 2, Overview: "[..]", Peers: []SyncPeer{{Info: conn}},
		Spans: []SyncSpan{{ConnectionID: "ab", NBlocks: 3, Rate: 4, RemoteAddress: "1.2.3.4:18080", Size: 5, Speed: 100,
			StartBlockHeight: 6}}, TargetHeight: 7}
	roundTrip(t, "sync_info", &sync, (*SyncInfoResponse).Write)
	bans := GetBansResponse{Bans: []BanInfo{{Host: "1.2.3.4", IP: IPv4ToEpee(IPv4FromEpee(0x04030201)), Seconds: 60}, {Host: "10.0.0.0/8"}}}
	roundTrip(t, "get_bans", &bans, (*GetBansResponse).Write)
	netStats := GetNetStatsResponse{StartTime: 1, TotalBytesIn: 2, TotalBytesOut: 3, TotalPacketsIn: 4, TotalPacketsOut: 5}
	roundTrip(t, "get_net_stats", &netStats, (*GetNetStatsResponse).Write)
	limit := GetLimitResponse{LimitDown: 32768, LimitUp: -1, Status: StatusOK}
	roundTrip(t, "get_limit", &limit, (*GetLimitResponse).Write)
	header := BlockHeader{BlockSize: 1, BlockWeight: 2, CumulativeDifficulty: 3, CumulativeDifficultyTop64: 4, Depth: 5,
		Difficulty: 6, DifficultyTop64: 7, Hash: h, Height: 8, LongTermWeight: 9, MajorVersion: 16, MinerTxHash: h,
		MinorVersion: 16, Nonce: 1<<32 - 1, NumTxes: 10, OrphanStatus: true, PowHash: h, PrevHash: h, Reward: 11,
		Timestamp: 12, WideCumulativeDifficulty: "0x40000000000000003", WideDifficulty: "0x70000000000000006"}
	headers := BlockHeaderResponse{BlockHeader: header, BlockHeaders: []BlockHeader{header, {Hash: h}}, Status: StatusOK}
	roundTrip(t, "getblockheaderbyhash", &headers, (*BlockHeaderResponse).Write)
	headersRange := GetBlockHeadersRangeResponse{Headers: []BlockHeader{header, header}}
	roundTrip(t, "getblockheadersrange", &headersRange, (*GetBlockHeadersRangeResponse).Write)
	count := GetBlockCountResponse{Count: 301}
	roundTrip(t, "get_block_count", &count, (*GetBlockCountResponse).Write)
	height := GetHeightResponse{Hash: h, Height: 301}
	roundTrip(t, "get_height", &height, (*GetHeightResponse).Write)
	block := GetBlockResponse{Blob: "0100", BlockHeader: header, JSON: `{"major_version": 16}`, MinerTxHash: h, TxHashes: []string{h}}
	roundTrip(t, "getblock", &block, (*GetBlockResponse).Write)
	refusedTx := SendRawTxResponse{DoubleSpend: true, FeeTooLow: true, InvalidInput: true, InvalidOutput: true, LowMixin: true,
		NonzeroUnlockTime: true, Overspend: true, SanityCheckFailed: true, Status: "Failed", TooBig: true, TooFewOutputs: true,
		TxExtraTooBig: true}
	roundTrip(t, "sendrawtransaction refused", &refusedTx, (*SendRawTxResponse).Write)
	relayed := SendRawTxResponse{NotRelayed: true, Reason: "Not relayed", Status: StatusOK}
	roundTrip(t, "sendrawtransaction", &relayed, (*SendRawTxResponse).Write)
	fee := GetFeeEstimateResponse{Fee: 20_000, Fees: []uint64{20_000, 80_000, 320_000, 4_000_000}, QuantizationMask: 10_000}
	roundTrip(t, "get_fee_estimate", &fee, (*GetFeeEstimateResponse).Write)
	histogram := GetOutputHistogramResponse{Histogram: []HistogramEntry{{Amount: 1, Total: 2, Unlocked: 3, Recent: 4}}, Status: StatusOK}
	roundTrip(t, "get_output_histogram", &histogram, (*GetOutputHistogramResponse).Write)
	submit := SubmitBlockResponse{Status: StatusOK, BlockID: h}
	roundTrip(t, "submit_block", &submit, (*SubmitBlockResponse).Write)
}

// requestRoundTrip encodes a request with encoding/json, as a client
// sends it, and decodes it with its decoder: the same request comes back.
func requestRoundTrip[T any](t *testing.T, name string, in T, parse func(Params) (T, bool)) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`\ufffd`)) {
		return // encoding/json sends invalid UTF-8 as U+FFFD: not the same request
	}
	p, ok := PathRequest(b)
	if !ok {
		t.Fatalf("%s: %s does not load", name, b)
	}
	out, ok := parse(p)
	if !ok || !reflect.DeepEqual(in, out) {
		t.Fatalf("%s: sent %+v, decoded %+v (%v)", name, in, out, ok)
	}
}

// sendRawTxRoundTrip is requestRoundTrip for /sendrawtransaction, whose
// decoder reads the body.
func sendRawTxRoundTrip(t *testing.T, in SendRawTxRequest) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`\ufffd`)) {
		return
	}
	out, ok := ParseSendRawTxRequest(b)
	if !ok || out != in {
		t.Fatalf("sendrawtransaction: sent %+v, decoded %+v (%v)", in, out, ok)
	}
}

// withError adapts a decoder that answers a JSON-RPC error.
func withError[T any](parse func(Params) (T, *Error)) func(Params) (T, bool) {
	return func(p Params) (T, bool) {
		r, e := parse(p)
		return r, e == nil
	}
}

// auxPowRequest is add_aux_pow's request as a client encodes it.
type auxPowRequest struct {
	AuxPow []AuxPow `json:"aux_pow"`
}

func parseAuxPowRequest(p Params) (auxPowRequest, bool) {
	a, e := ParseAuxPow(p)
	return auxPowRequest{a}, e == nil
}

func TestRequestsRoundTrip(t *testing.T) {
	h := "9c5e2ecae27bf24a6579310a1a6bf259cca359dc56938587105727dc0925dd21"
	requestRoundTrip(t, "gettransactions", GetTransactionsRequest{TxsHashes: []string{h, "zz"}, DecodeAsJSON: true, Prune: true, Split: true}, ParseGetTransactions)
	requestRoundTrip(t, "is_key_image_spent", IsKeyImageSpentRequest{KeyImages: []string{h}}, ParseIsKeyImageSpent)
	requestRoundTrip(t, "hard_fork_info", HardForkInfoRequest{Version: 255}, withError(ParseHardForkInfoRequest))
	requestRoundTrip(t, "set_bans", SetBansRequest{Bans: []SetBan{{Host: "1.2.3.4", Ban: true, Seconds: 60}, {IP: 1 << 31, Seconds: 1<<32 - 1}}}, withError(ParseSetBansRequest))
	sendRawTxRoundTrip(t, SendRawTxRequest{TxAsHex: "0200", DoNotRelay: true})
	sendRawTxRoundTrip(t, SendRawTxRequest{TxAsHex: "0200", DoSanityChecks: true})
	if r, ok := ParseSendRawTxRequest([]byte(" \n")); !ok || !r.DoSanityChecks {
		t.Fatalf("an empty sendrawtransaction body reads as %+v, %v", r, ok)
	}
	requestRoundTrip(t, "get_fee_estimate", GetFeeEstimateRequest{GraceBlocks: 10}, withError(ParseGetFeeEstimateRequest))
	requestRoundTrip(t, "get_block_template", BlockTemplateRequest{ReserveSize: 8, WalletAddress: "4A", PrevBlock: h, ExtraNonce: "00ff"}, withError(ParseBlockTemplateRequest))
	requestRoundTrip(t, "start_mining", StartMiningRequest{MinerAddress: "4A", Threads: 2, Background: true, IgnoreBattery: true}, withError(ParseStartMiningRequest))
	requestRoundTrip(t, "add_aux_pow", auxPowRequest{[]AuxPow{{ID: h, Hash: h}, {ID: "x", Hash: ""}}}, parseAuxPowRequest)
	v, err := epeejson.Parse([]byte(`{"txids":["` + h + `"]}`))
	if err != nil {
		t.Fatal(err)
	}
	ids, e := ParseTxids(NewParams(v, true))
	if e != nil || len(ids) != 1 || ids[0] != h {
		t.Fatalf("txids: %v, %v", ids, e)
	}
}

// FuzzJSONRequests: every JSON request decoder of this package takes any
// params without panicking, and a request it loads, sent again as a client
// encodes it, loads to the same request.
func FuzzJSONRequests(f *testing.F) {
	h := "9c5e2ecae27bf24a6579310a1a6bf259cca359dc56938587105727dc0925dd21"
	for _, s := range []string{
		`{"client":"","decode_as_json":false,"prune":true,"txs_hashes":["` + h + `"]}`,
		`{"txs_hashes":["` + h + `","zz"],"split":true,"decode_as_json":true}`,
		`{"key_images":["` + h + `","aa",""]}`, `{"txids":["` + h + `"]}`, `{"txids":["zz",1]}`,
		`{"wallet_address":"4A","reserve_size":8}`, `{"wallet_address":"4A","extra_nonce":"00ff","prev_block":"x"}`,
		`{"reserve_size":-1}`, `{"aux_pow":[{"id":"` + h + `","hash":"` + h + `"}]}`, `{"aux_pow":[1]}`,
		`{"miner_address":"4A","threads_count":1,"do_background_mining":true,"ignore_battery":false}`,
		`{"version":16}`, `{"version":"16"}`, `{"version":256}`,
		`{"bans":[{"host":"1.2.3.4","ban":true,"seconds":3600},{"host":"10.0.0.0/8","ban":true}]}`,
		`{"bans":[{"ip":16909060,"ban":true,"seconds":60},{"ip":4294967296}]}`, `{"bans":[1]}`,
		`{"tx_as_hex":"0200","do_not_relay":true,"do_sanity_checks":false}`, `{"do_sanity_checks":1}`,
		`{"client":""}`, ``, `{`, `{"txs_hashes":[1]}`, `{"prune":"x"}`, `[1,2]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if r, ok := ParseSendRawTxRequest(body); ok {
			sendRawTxRoundTrip(t, r)
		}
		p, ok := PathRequest(body)
		if !ok {
			return
		}
		if r, ok := ParseGetTransactions(p); ok {
			requestRoundTrip(t, "gettransactions", r, ParseGetTransactions)
		}
		if r, ok := ParseIsKeyImageSpent(p); ok {
			requestRoundTrip(t, "is_key_image_spent", r, ParseIsKeyImageSpent)
		}
		_, _ = ParseTxids(p)
		if r, e := ParseHardForkInfoRequest(p); e == nil {
			requestRoundTrip(t, "hard_fork_info", r, withError(ParseHardForkInfoRequest))
		}
		if r, e := ParseSetBansRequest(p); e == nil && len(r.Bans) > 0 {
			requestRoundTrip(t, "set_bans", r, withError(ParseSetBansRequest))
		}
		if r, e := ParseGetFeeEstimateRequest(p); e == nil {
			requestRoundTrip(t, "get_fee_estimate", r, withError(ParseGetFeeEstimateRequest))
		}
		if r, e := ParseBlockTemplateRequest(p); e == nil {
			requestRoundTrip(t, "hard_fork_info", HardForkInfoRequest{Version: 255}, withError(ParseHardForkInfoRequest))
			requestRoundTrip(t, "set_bans", SetBansRequest{Bans: []SetBan{{Host: "1.2.3.4", Ban: true, Seconds: 60}, {IP: 1 << 31, Seconds: 1<<32 - 1}}}, withError(ParseSetBansRequest))
			sendRawTxRoundTrip(t, SendRawTxRequest{TxAsHex: "0200", DoNotRelay: true})
			sendRawTxRoundTrip(t, SendRawTxRequest{TxAsHex: "0200", DoSanityChecks: true})
			if r, ok := ParseSendRawTxRequest([]byte(" \n")); !ok || !r.DoSanityChecks {
				t.Fatalf("an empty sendrawtransaction body reads as %+v, %v", r, ok)
			}
			requestRoundTrip(t, "get_fee_estimate", GetFeeEstimateRequest{GraceBlocks: 10}, withError(ParseGetFeeEstimateRequest))
			requestRoundTrip(t, "get_block_template", r, withError(ParseBlockTemplateRequest))
		}
		if r, e := ParseStartMiningRequest(p); e == nil {
			requestRoundTrip(t, "start_mining", r, withError(ParseStartMiningRequest))
		}
		if r, ok := parseAuxPowRequest(p); ok && len(r.AuxPow) > 0 {
			requestRoundTrip(t, "add_aux_pow", r, parseAuxPowRequest)
		}
	})
}
