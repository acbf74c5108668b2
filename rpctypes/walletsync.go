package rpctypes

import (
	"errors"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/portable"
)

// Requests and answers of the wallet-sync endpoints (/getblocks.bin,
// /getblocks_by_height.bin, /gethashes.bin, /get_o_indexes.bin,
// /get_outs.bin, /get_outs, /get_output_distribution.bin and the JSON-RPC
// get_output_distribution and get_output_histogram), as
// core_rpc_server_commands_defs.h of monerod v0.18.0.0 declares them.
//
// A .bin request is an epee storage blob loaded by epee's rules
// (portable_storage_val_converters.h, keyvalue_serialization_overloads.h):
// a missing field keeps its default; an integer field takes any integer
// type that fits or a string of digits; a bool field only a bool; a list
// field that is not an array is ignored, as is a POD blob of the wrong
// length; any other mismatch throws and monerod answers 400 with no body.

// BinRequestLimits bound what one .bin request may make the decoder build.
// monerod parses RPC bodies without limits, but a body is at most 1 MiB
// (httpd's MAX_RPC_CONTENT_LENGTH), so no real request comes near these:
// get_outs with 30,000 outputs (the most a 1 MiB body holds) is 30,001
// objects and 60,000 fields.
var BinRequestLimits = portable.Limits{MaxObjects: 1 << 17, MaxFields: 1 << 17, MaxStrings: 1 << 17, MaxDepth: portable.MaxDepth}

// ErrBadRequest is what makes a handler answer 400: the body is not a
// storage blob, or a field cannot be converted.
var ErrBadRequest = errors.New("rpctypes: request body cannot be loaded")

// binFields loads fields of a decoded .bin request; the first failure
// sticks in err.
type binFields struct {
	s   portable.Section
	err error
}

func decodeBin(body []byte) (*binFields, error) {
	s, err := portable.DecodeWithLimits(body, BinRequestLimits)
	if err != nil {
		return nil, ErrBadRequest
	}
	f := &binFields{s: s}
	f.client() // rpc_access_request_base's client: unused, but its type is checked
	return f, nil
}

func (f *binFields) fail() { f.err = ErrBadRequest }

func (f *binFields) uint64(name string, def uint64) uint64 {
	v, ok := f.s.Get(name)
	if !ok {
		return def
	}
	n, err := v.AsUint64()
	if err != nil {
		f.fail()
		return def
	}
	return n
}

func (f *binFields) bool(name string, def bool) bool {
	v, ok := f.s.Get(name)
	if !ok {
		return def
	}
	if v.Type != portable.TypeBool {
		f.fail()
		return def
	}
	return v.Bool
}

func (f *binFields) client() {
	if v, ok := f.s.Get("client"); ok && v.Type != portable.TypeString {
		f.fail()
	}
}

// blob reads a STRING field (KV_SERIALIZE_VAL_POD_AS_BLOB,
// KV_SERIALIZE_CONTAINER_POD_AS_BLOB): nil when absent.
func (f *binFields) blob(name string) []byte {
	v, ok := f.s.Get(name)
	if !ok {
		return nil
	}
	if v.Type != portable.TypeString {
		f.fail()
		return nil
	}
	return v.Bytes
}

// hashes reads a list of hashes sent as one blob; a length that is not a
// multiple of 32 leaves the list empty.
func (f *binFields) hashes(name string) []cryptonote.Hash {
	b := f.blob(name)
	if len(b) == 0 || len(b)%32 != 0 {
		return nil
	}
	out := make([]cryptonote.Hash, len(b)/32)
	for i := range out {
		copy(out[i][:], b[32*i:])
	}
	return out
}

// hash reads one hash sent as a blob; another length leaves it zero.
func (f *binFields) hash(name string) cryptonote.Hash {
	var h cryptonote.Hash
	if b := f.blob(name); len(b) == 32 {
		copy(h[:], b)
	}
	return h
}

// uint64s reads a std::vector<uint64_t>: an entry that is not an array is
// ignored (get_first_value finds no array); each element is converted.
func (f *binFields) uint64s(name string) []uint64 {
	v, ok := f.s.Get(name)
	if !ok || !v.Type.IsArray() || len(v.Array) == 0 {
		return nil
	}
	out := make([]uint64, len(v.Array))
	for i := range v.Array {
		n, err := v.Array[i].AsUint64()
		if err != nil {
			f.fail()
			return nil
		}
		out[i] = n
	}
	return out
}

// sections reads a std::vector of structs: anything but an array of
// objects is ignored (get_first_section finds no section).
func (f *binFields) sections(name string) []portable.Section {
	v, ok := f.s.Get(name)
	if !ok || v.Type != portable.ArrayFlag|portable.TypeObject {
		return nil
	}
	out := make([]portable.Section, len(v.Array))
	for i := range v.Array {
		out[i] = v.Array[i].Object
	}
	return out
}

// GetBlocksRequest is COMMAND_RPC_GET_BLOCKS_FAST's request (RPC 3.16:
// requested_info, pool_info_since and max_block_count came with 3.13).
type GetBlocksRequest struct {
	// RequestedInfo: 0 blocks only (what older wallets get, asking
	// nothing), 1 blocks and the pool, 2 the pool only.
	RequestedInfo uint64
	BlockIDs      []cryptonote.Hash
	StartHeight   uint64
	Prune         bool
	NoMinerTx     bool
	// PoolInfoSince is the daemon_time of the wallet's last pool answer
	// (0: the whole pool).
	PoolInfoSince uint64
	// MaxBlockCount caps the blocks answered (0: the endpoint's own cap).
	MaxBlockCount uint64
}

// requested_info's values and pool_info_extent's (COMMAND_RPC_GET_BLOCKS_FAST).
const (
	BlocksOnly    = 0
	BlocksAndPool = 1
	PoolOnly      = 2

	PoolInfoNone        = 0
	PoolInfoIncremental = 1
	PoolInfoFull        = 2
)

// ParseGetBlocksRequest loads /getblocks.bin's request from its body;
// an error is ErrBadRequest (400).
func ParseGetBlocksRequest(body []byte) (GetBlocksRequest, error) {
	var r GetBlocksRequest
	f, err := decodeBin(body)
	if err != nil {
		return r, err
	}
	r.RequestedInfo = f.uint64("requested_info", BlocksOnly)
	r.BlockIDs = f.hashes("block_ids")
	r.StartHeight = f.uint64("start_height", 0)
	r.Prune = f.bool("prune", false)
	r.NoMinerTx = f.bool("no_miner_tx", false)
	r.PoolInfoSince = f.uint64("pool_info_since", 0)
	r.MaxBlockCount = f.uint64("max_block_count", 0)
	return r, f.err
}

// GetHashesRequest is COMMAND_RPC_GET_HASHES_FAST's request.
type GetHashesRequest struct {
	BlockIDs    []cryptonote.Hash
	StartHeight uint64
}

// ParseGetHashesRequest loads /gethashes.bin's request from its body.
func ParseGetHashesRequest(body []byte) (GetHashesRequest, error) {
	var r GetHashesRequest
	f, err := decodeBin(body)
	if err != nil {
		return r, err
	}
	r.BlockIDs = f.hashes("block_ids")
	r.StartHeight = f.uint64("start_height", 0)
	return r, f.err
}

// ParseHeightsRequest reads COMMAND_RPC_GET_BLOCKS_BY_HEIGHT's request.
func ParseHeightsRequest(body []byte) ([]uint64, error) {
	f, err := decodeBin(body)
	if err != nil {
		return nil, err
	}
	h := f.uint64s("heights")
	return h, f.err
}

// ParseOIndexesRequest reads COMMAND_RPC_GET_TX_GLOBAL_OUTPUTS_INDEXES's
// request: the txid.
func ParseOIndexesRequest(body []byte) (cryptonote.Hash, error) {
	f, err := decodeBin(body)
	if err != nil {
		return cryptonote.Hash{}, err
	}
	h := f.hash("txid")
	return h, f.err
}

// OutputRef is get_outputs_out: an output by amount and index.
type OutputRef struct {
	Amount, Index uint64
}

// GetOutsRequest is COMMAND_RPC_GET_OUTPUTS_BIN's (and COMMAND_RPC_GET_OUTPUTS's) request.
type GetOutsRequest struct {
	Outputs []OutputRef
	GetTxID bool
}

// ParseGetOutsBinRequest loads /get_outs.bin's request from its body:
// the wallet layout straight from the blob, anything else through the
// general decoder.
func ParseGetOutsBinRequest(body []byte) (GetOutsRequest, error) {
	if r, ok := parseGetOutsBinWallet(body); ok {
		return r, nil
	}
	return parseGetOutsBinGeneral(body)
}

// parseGetOutsBinGeneral reads any /get_outs.bin body through the general
// decoder.
func parseGetOutsBinGeneral(body []byte) (GetOutsRequest, error) {
	var r GetOutsRequest
	f, err := decodeBin(body)
	if err != nil {
		return r, err
	}
	secs := f.sections("outputs")
	if len(secs) > 0 {
		r.Outputs = make([]OutputRef, len(secs))
	}
	for i := range secs {
		o := binFields{s: secs[i]}
		r.Outputs[i] = OutputRef{Amount: o.uint64("amount", 0), Index: o.uint64("index", 0)}
		if o.err != nil {
			return r, o.err
		}
	}
	// KV_SERIALIZE_OPT(get_txid, true): the binary request defaults to true
	// (the JSON one to false).
	r.GetTxID = f.bool("get_txid", true)
	return r, f.err
}

// getOutsWalletOutputSize is the encoding of one {amount, index} output
// as a wallet writes it: entry count, "amount" uint64, "index" uint64.
const getOutsWalletOutputSize = 1 + (1 + 6 + 1 + 8) + (1 + 5 + 1 + 8)

// parseGetOutsBinWallet reads a /get_outs.bin body laid out as wallet2
// writes it (client, get_txid, outputs of {amount, index} uint64 pairs, in
// any order at the top, each at most once), straight from the blob: a
// wallet asks for hundreds of ring members at a time, and building a value
// tree for them was most of the request's cost. Anything else (another
// field, another integer type, a missing field, trailing bytes) is false,
// and the body then goes through the general decoder, so every other body
// gets exactly the general decoder's verdict. FuzzGetOutsBinWallet holds
// the two to the same answer.
func parseGetOutsBinWallet(body []byte) (GetOutsRequest, bool) {
	r := GetOutsRequest{GetTxID: true} // the binary request's default
	rd, ok := portable.NewReader(body)
	if !ok {
		return r, false
	}
	n, ok := rd.Varint()
	if !ok || n > 3 {
		return r, false
	}
	var seen [3]bool
	for range n {
		name, ok := rd.Name()
		if !ok {
			return r, false
		}
		t, ok := rd.Type()
		if !ok {
			return r, false
		}
		switch string(name) {
		case "client":
			if seen[0] || t != portable.TypeString {
				return r, false
			}
			seen[0] = true
			if _, ok := rd.String(); !ok {
				return r, false
			}
		case "get_txid":
			if seen[1] || t != portable.TypeBool {
				return r, false
			}
			seen[1] = true
			if r.GetTxID, ok = rd.Bool(); !ok {
				return r, false
			}
		case "outputs":
			if seen[2] || t != portable.ArrayFlag|portable.TypeObject {
				return r, false
			}
			seen[2] = true
			count, ok := rd.Varint()
			// Within the blob's size, and within BinRequestLimits (each
			// output an object of two fields), as the decoder checks.
			if !ok || count > uint64(rd.Left()/getOutsWalletOutputSize) || count >= uint64(BinRequestLimits.MaxObjects) {
				return r, false
			}
			if count > 0 {
				r.Outputs = make([]OutputRef, count)
			}
			for i := range r.Outputs {
				if !readWalletOutput(rd, &r.Outputs[i]) {
					return r, false
				}
			}
		default:
			return r, false
		}
	}
	return r, rd.Done()
}

// readWalletOutput reads one {amount, index} object of get_outs.bin as
// wallet2 writes it: two uint64 entries, in epee's (sorted) order.
func readWalletOutput(rd *portable.Reader, o *OutputRef) bool {
	if m, ok := rd.Varint(); !ok || m != 2 {
		return false
	}
	for i, want := range [2]string{"amount", "index"} {
		name, ok := rd.Name()
		if !ok || string(name) != want {
			return false
		}
		if t, ok := rd.Type(); !ok || t != portable.TypeUint64 {
			return false
		}
		v, ok := rd.Uint64()
		if !ok {
			return false
		}
		if i == 0 {
			o.Amount = v
		} else {
			o.Index = v
		}
	}
	return true
}

// ParseGetOutsJSONRequest reads /get_outs' JSON body. An empty body is an
// empty request (monerod answers it "OK").
func ParseGetOutsJSONRequest(body []byte) (GetOutsRequest, error) {
	return parseGetOutsJSON(body, epeejson.Parse)
}

// ParseGetOutsJSONRequestCapped is ParseGetOutsJSONRequest building at
// most n+1 outputs (epeejson.ParseCapped): for a listener that refuses
// more than n, a body of 40,000 outputs costs what 5,001 cost. Outputs past
// n+1 are checked for syntax and kind but not for their members' types.
func ParseGetOutsJSONRequestCapped(body []byte, n int) (GetOutsRequest, error) {
	return parseGetOutsJSON(body, func(b []byte) (epeejson.Value, error) { return epeejson.ParseCapped(b, "outputs", n) })
}

func parseGetOutsJSON(body []byte, parse func([]byte) (epeejson.Value, error)) (GetOutsRequest, error) {
	var r GetOutsRequest
	p, err := jsonBodyParams(body, parse)
	if err != nil {
		return r, err
	}
	if _, e := p.String("client"); e != nil {
		return r, ErrBadRequest
	}
	if v, ok := p.Get("outputs"); ok && v.Kind == epeejson.KindArray {
		objs := true
		for i := range v.Arr {
			objs = objs && v.Arr[i].Kind == epeejson.KindObject
		}
		if objs && len(v.Arr) > 0 {
			r.Outputs = make([]OutputRef, len(v.Arr))
			for i := range v.Arr {
				o := NewParams(v.Arr[i], true)
				var e1, e2 *Error
				r.Outputs[i].Amount, e1 = o.Uint64("amount")
				r.Outputs[i].Index, e2 = o.Uint64("index")
				if e1 != nil || e2 != nil {
					return r, ErrBadRequest
				}
			}
		}
	}
	var e *Error
	if r.GetTxID, e = p.Bool("get_txid"); e != nil {
		return r, ErrBadRequest
	}
	return r, nil
}

// DistributionRequest is COMMAND_RPC_GET_OUTPUT_DISTRIBUTION's request.
type DistributionRequest struct {
	Amounts          []uint64
	FromHeight       uint64
	ToHeight         uint64
	Cumulative       bool
	Binary, Compress bool
}

// ParseDistributionBinRequest loads /get_output_distribution.bin's
// request from its body (binary defaults to true).
func ParseDistributionBinRequest(body []byte) (DistributionRequest, error) {
	var r DistributionRequest
	f, err := decodeBin(body)
	if err != nil {
		return r, err
	}
	r.Amounts = f.uint64s("amounts")
	r.FromHeight = f.uint64("from_height", 0)
	r.ToHeight = f.uint64("to_height", 0)
	r.Cumulative = f.bool("cumulative", false)
	r.Binary = f.bool("binary", true)
	r.Compress = f.bool("compress", false)
	return r, f.err
}

// ParseDistributionParams loads get_output_distribution's JSON-RPC
// request from params (binary defaults to true).
func ParseDistributionParams(p Params) (DistributionRequest, *Error) {
	var r DistributionRequest
	var e *Error
	if r.Amounts, e = p.Uint64List("amounts"); e != nil {
		return r, e
	}
	if r.FromHeight, e = p.Uint64("from_height"); e != nil {
		return r, e
	}
	if r.ToHeight, e = p.Uint64("to_height"); e != nil {
		return r, e
	}
	if r.Cumulative, e = p.Bool("cumulative"); e != nil {
		return r, e
	}
	if r.Binary, e = Convert(p, "binary", true, epeejson.Value.AsBool); e != nil {
		return r, e
	}
	r.Compress, e = p.Bool("compress")
	return r, e
}

// HistogramRequest is COMMAND_RPC_GET_OUTPUT_HISTOGRAM's request.
type HistogramRequest struct {
	Amounts            []uint64
	MinCount, MaxCount uint64
	Unlocked           bool
	RecentCutoff       uint64
}

// ParseHistogramParams loads get_output_histogram's request from params.
func ParseHistogramParams(p Params) (HistogramRequest, *Error) {
	var r HistogramRequest
	var e *Error
	if r.Amounts, e = p.Uint64List("amounts"); e != nil {
		return r, e
	}
	if r.MinCount, e = p.Uint64("min_count"); e != nil {
		return r, e
	}
	if r.MaxCount, e = p.Uint64("max_count"); e != nil {
		return r, e
	}
	if r.Unlocked, e = p.Bool("unlocked"); e != nil {
		return r, e
	}
	r.RecentCutoff, e = p.Uint64("recent_cutoff")
	return r, e
}

// Answers. Every one ends with rpc_access_response_base's members, which
// sort among the command's own: credits, status, top_hash, untrusted.

// BinAnswer starts a .bin answer of n root entries.
func BinAnswer(n, sizeHint int) *portable.Writer {
	w := portable.NewWriter(make([]byte, 0, sizeHint))
	w.Header()
	w.Section(n)
	return w
}

// WriteBinTail writes the last fields of every .bin answer, in epee's
// (sorted) order: status, top_hash (empty: no RPC payment) and untrusted.
func WriteBinTail(w *portable.Writer, status string) {
	w.FieldString("status", status)
	w.FieldString("top_hash", "")
	w.FieldBool("untrusted", false)
}

// StatusOnlyBin is the answer of a request that failed before producing
// anything: credits, status, top_hash, untrusted.
func StatusOnlyBin(status string) []byte {
	w := BinAnswer(4, 64+len(status))
	w.FieldUint64("credits", 0)
	WriteBinTail(w, status)
	return w.Bytes()
}

// OutKey is one answer of get_outs: COMMAND_RPC_GET_OUTPUTS_BIN::outkey.
type OutKey struct {
	Key, Mask cryptonote.Key
	Unlocked  bool
	Height    uint64
	TxID      cryptonote.Hash // zero unless get_txid
}

// OutsBin writes /get_outs.bin's answer.
func OutsBin(outs []OutKey, status string) []byte {
	n := 4
	if len(outs) > 0 {
		n++
	}
	w := BinAnswer(n, 96+len(outs)*150) // 144 bytes an output
	w.FieldUint64("credits", 0)
	if len(outs) > 0 {
		w.Array("outs", portable.TypeObject, len(outs))
		for i := range outs {
			o := &outs[i]
			w.Section(5)
			w.FieldUint64("height", o.Height)
			w.FieldBlob("key", o.Key[:])
			w.FieldBlob("mask", o.Mask[:])
			w.FieldBlob("txid", o.TxID[:])
			w.FieldBool("unlocked", o.Unlocked)
		}
	}
	WriteBinTail(w, status)
	return w.Bytes()
}

// OutsJSON writes /get_outs' answer: keys and masks in hex, the txid
// in hex only when asked for ("" otherwise).
func OutsJSON(outs []OutKey, withTxID bool, status string) []byte {
	w := epeejson.NewWriter(make([]byte, 0, 128+len(outs)*260))
	w.BeginObject()
	w.KeyUint("credits", 0)
	if len(outs) > 0 {
		w.Key("outs")
		w.BeginArray()
		for i := range outs {
			o := &outs[i]
			w.BeginObject()
			w.KeyUint("height", o.Height)
			w.KeyString("key", cryptonote.Hash(o.Key).String())
			w.KeyString("mask", cryptonote.Hash(o.Mask).String())
			txid := ""
			if withTxID {
				txid = o.TxID.String()
			}
			w.KeyString("txid", txid)
			w.KeyBool("unlocked", o.Unlocked)
			w.EndObject()
		}
		w.EndArray()
	}
	w.KeyString("status", status)
	w.KeyString("top_hash", "")
	w.KeyBool("untrusted", false)
	w.EndObject()
	return w.Bytes()
}

// Distribution is one element of get_output_distribution's answer
// (rpc::output_distribution_data plus the request's amount and flags).
type Distribution struct {
	Amount, StartHeight, Base uint64
	Data                      []uint64
	Binary, Compress          bool
}

// compressed is compress_integer_array: each value as the chain's varint.
func (d *Distribution) compressed() []byte {
	b := make([]byte, 0, len(d.Data)*2)
	for _, v := range d.Data {
		b = cryptonote.AppendVarint(b, v)
	}
	return b
}

// rawLE is KV_SERIALIZE_CONTAINER_POD_AS_BLOB of the uint64 values.
func (d *Distribution) rawLE() []byte {
	b := make([]byte, 8*len(d.Data))
	for i, v := range d.Data {
		putUint64LE(b[8*i:], v)
	}
	return b
}

func putUint64LE(b []byte, v uint64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	b[4], b[5], b[6], b[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
}

// writeBin writes the Distribution as an element of the distributions
// array: amount, base, binary, compress, then compressed_data (always,
// even empty) or Distribution (omitted when empty), start_height.
func (d *Distribution) WriteBin(w *portable.Writer) {
	var payload []byte
	name := "distribution"
	switch {
	case d.Compress:
		payload, name = d.compressed(), "compressed_data"
	default:
		payload = d.rawLE()
	}
	n := 5
	if d.Compress || len(d.Data) > 0 {
		n++
	}
	w.Section(n)
	w.FieldUint64("amount", d.Amount)
	w.FieldUint64("base", d.Base)
	w.FieldBool("binary", d.Binary)
	w.FieldBool("compress", d.Compress)
	if d.Compress || len(d.Data) > 0 {
		w.FieldBlob(name, payload)
	}
	w.FieldUint64("start_height", d.StartHeight)
}

// writeJSON writes it as monerod's JSON: with binary set the data is a
// string of raw bytes, as in the binary answer; otherwise an array of
// numbers (omitted when empty).
func (d *Distribution) WriteJSON(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("amount", d.Amount)
	w.KeyUint("base", d.Base)
	w.KeyBool("binary", d.Binary)
	w.KeyBool("compress", d.Compress)
	switch {
	case d.Binary && d.Compress:
		w.KeyString("compressed_data", string(d.compressed()))
	case d.Binary:
		if len(d.Data) > 0 {
			w.KeyString("distribution", string(d.rawLE()))
		}
	case len(d.Data) > 0:
		w.Key("distribution")
		w.BeginArray()
		for _, v := range d.Data {
			w.Uint(v)
		}
		w.EndArray()
	}
	w.KeyUint("start_height", d.StartHeight)
	w.EndObject()
}

// HistogramEntry is COMMAND_RPC_GET_OUTPUT_HISTOGRAM::entry
// (core_rpc_server_commands_defs.h).
type HistogramEntry struct {
	Amount   uint64 `json:"amount"`
	Total    uint64 `json:"total_instances"`
	Unlocked uint64 `json:"unlocked_instances"`
	Recent   uint64 `json:"recent_instances"`
}

// Write writes the entry.
func (e *HistogramEntry) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("amount", e.Amount)
	w.KeyUint("recent_instances", e.Recent)
	w.KeyUint("total_instances", e.Total)
	w.KeyUint("unlocked_instances", e.Unlocked)
	w.EndObject()
}

// GetOutputDistributionResponse is get_output_distribution's JSON-RPC
// answer (COMMAND_RPC_GET_OUTPUT_DISTRIBUTION::response); its status is
// always OK (a failure is a JSON-RPC error).
type GetOutputDistributionResponse struct {
	Distributions []*Distribution
}

// Write writes the answer.
func (r *GetOutputDistributionResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
	if len(r.Distributions) > 0 {
		w.Key("distributions")
		w.BeginArray()
		for _, d := range r.Distributions {
			d.WriteJSON(w)
		}
		w.EndArray()
	}
	WriteStatusTail(w, StatusOK)
	WriteUntrusted(w)
	w.EndObject()
}

// GetOutputHistogramResponse is get_output_histogram's answer
// (COMMAND_RPC_GET_OUTPUT_HISTOGRAM::response).
type GetOutputHistogramResponse struct {
	Histogram []HistogramEntry `json:"histogram"` // omitted when empty
	Status    string           `json:"status"`
}

// Write writes the answer.
func (r *GetOutputHistogramResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
	WriteList(w, "histogram", r.Histogram, (*HistogramEntry).Write)
	WriteStatusTail(w, r.Status)
	WriteUntrusted(w)
	w.EndObject()
}
