package zmqrpc

import (
	"bytes"
	"encoding/hex"
	"strconv"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/txpool"
)

// rpcVersionZMQ is DAEMON_RPC_VERSION_ZMQ (major 2, minor 0), which every
// result carries as its first member.
const rpcVersionZMQ = 2 << 16

// Restricted-mode caps, monerod's (daemon_handler.cpp).
const (
	restrictedMaxTxs          = 100
	restrictedMaxKeyImages    = 5000
	restrictedMaxBlockHeaders = 1000
	restrictedMaxFakeOuts     = 5000
)

// Status strings (rpc::Message) that become an error's error_str.
const (
	statusFailed       = "Failed"
	statusBadRequest   = "Invalid request type"
	statusBadJSON      = "Malformed json"
	statusTooLarge     = "Request too large"
	msgRequestTooLarge = "Request exceeds maximum message size."
)

// jsonError is one of monerod's json exceptions; its text is the error's
// message in a "Malformed json" answer.
type jsonError string

func (e jsonError) Error() string { return string(e) }

func wrongType(t string) jsonError {
	return jsonError("Json value has incorrect type, expected: " + t)
}
func missingKey(k string) jsonError {
	return jsonError(`Key "` + k + `" missing from object.`)
}

const (
	errParseFail = jsonError("Failed to parse the json request")
	errBadInput  = jsonError("An item failed to convert from json object to native object")
)

// access says whether a restricted server (monerod's --restricted-zmq-rpc)
// refuses a method. Every method names one: there is no default.
type access int

const (
	public  access = iota + 1 // served in both modes (perhaps capped or filtered)
	blocked                   // zmq_restricted_methods.cpp's list
)

// method is one entry of monerod's handler table.
type method struct {
	access access
	// serve writes the result's members after rpc_version, or returns a
	// failure (status Failed, its message) or a jsonError.
	serve func(s *Server, params raw, w *writer) (fail string, err error)
}

// methods is daemon_handler.cpp's table (every name it knows, in its
// order), with restricted access from zmq_restricted_methods.cpp.
var methods = map[string]method{
	"get_block_hash":               {public, (*Server).getBlockHash},
	"get_block_header_by_hash":     {public, (*Server).getBlockHeaderByHash},
	"get_block_header_by_height":   {public, (*Server).getBlockHeaderByHeight},
	"get_block_headers_by_height":  {public, (*Server).getBlockHeadersByHeight},
	"get_blocks_fast":              {public, (*Server).getBlocksFast},
	"get_dynamic_fee_estimate":     {public, (*Server).getDynamicFeeEstimate},
	"get_hashes_fast":              {public, (*Server).getHashesFast},
	"get_height":                   {public, (*Server).getHeight},
	"get_info":                     {public, (*Server).getInfo},
	"get_last_block_header":        {public, (*Server).getLastBlockHeader},
	"get_output_distribution":      {public, (*Server).getOutputDistribution},
	"get_output_histogram":         {public, (*Server).getOutputHistogram},
	"get_output_keys":              {public, (*Server).getOutputKeys},
	"get_peer_list":                {blocked, notImplemented},
	"get_rpc_version":              {public, (*Server).getRPCVersion},
	"get_transaction_pool":         {public, (*Server).getTransactionPool},
	"get_transactions":             {public, (*Server).getTransactions},
	"get_tx_global_output_indices": {public, (*Server).getTxGlobalOutputIndices},
	"hard_fork_info":               {public, (*Server).hardForkInfo},
	"key_images_spent":             {public, (*Server).keyImagesSpent},
	"mining_status":                {blocked, (*Server).miningStatus},
	"save_bc":                      {blocked, (*Server).saveBC},
	"send_raw_tx":                  {public, (*Server).sendRawTx},
	"send_raw_tx_hex":              {public, (*Server).sendRawTxHex},
	"set_log_level":                {blocked, (*Server).setLogLevel},
	"start_mining":                 {blocked, (*Server).startMining},
	"stop_mining":                  {blocked, (*Server).stopMining},
}

// blockedOnly are names monerod refuses in restricted mode although its
// handler table does not have them (so unrestricted they are unknown).
var blockedOnly = map[string]bool{"flush_txpool": true, "relay_tx": true, "set_log_categories": true}

// notImplemented is monerod's own answer for get_peer_list over ZMQ.
func notImplemented(*Server, raw, *writer) (string, error) {
	return "RPC method not yet implemented.", nil
}

// handleParts answers one request message, as DaemonHandler::handle does,
// the answer in the pieces it was built of: a get_blocks_fast answer refers to the kept rendered blocks instead of
// copying them (writer.ref), so that answering a flood of them allocates
// next to nothing (before, 13.6 MB an answer of the heavy chain, several
// GB in 15 s of zmq-rpc-flood, and the collections that came with them
// stopped the whole node for up to 5 ms).
func (s *Server) handleParts(msg []byte) answer {
	if i := bytes.IndexByte(msg, 0); i >= 0 {
		msg = msg[:i]
	}
	// A light-wallet server asks the same get_output_distribution (amount
	// 0, to the top, the same id) again and again while the top block
	// stays: those bytes get the same answer, without parsing them again.
	if r := s.repeat.Load(); r != nil && bytes.Equal(r.request, msg) {
		if top := s.chain.NextBlockFacts(); r.height == top.Height && r.top == top.Top.Hash {
			return answer{b: r.answer}
		}
	}
	if !validate(msg) {
		return answer{b: errorAnswer(nil, statusBadJSON, string(errParseFail))}
	}
	docRaw := raw(msg[skipSpace(msg, 0):])
	if docRaw.kind() != kindObject {
		return answer{b: errorAnswer(nil, statusBadJSON, string(errParseFail))}
	}
	doc := parseObject(docRaw)
	if _, ok := doc.find("jsonrpc"); !ok {
		return answer{b: errorAnswer(nil, statusBadJSON, string(missingKey("jsonrpc")))}
	}
	m, ok := doc.find("method")
	if !ok {
		return answer{b: errorAnswer(nil, statusBadJSON, string(missingKey("method")))}
	}
	if m.kind() != kindString {
		return answer{b: errorAnswer(nil, statusBadJSON, string(wrongType("Expected string")))}
	}
	params, ok := doc.find("params")
	if !ok {
		return answer{b: errorAnswer(nil, statusBadJSON, string(missingKey("params")))}
	}
	id, hasID := doc.find("id")
	if hasID {
		if k := id.kind(); k != kindString && k != kindNumber && k != kindNull {
			return answer{b: errorAnswer(nil, statusBadJSON, string(wrongType("Expected string, number or null")))}
		}
	}
	name, _, _ := decodeString(m, 0, true)
	name = cString(name)
	// From here monerod reads the id with getID, which throws when absent.
	if !hasID {
		return answer{b: errorAnswer(nil, statusBadJSON, string(missingKey("id")))}
	}
	if s.cfg.Restricted && (blockedOnly[name] || (methods[name].access == blocked)) {
		return answer{b: errorAnswer(id, statusFailed, `"`+name+`" is not available in restricted mode.`)}
	}
	h, ok := methods[name]
	if !ok {
		return answer{b: errorAnswer(id, statusBadRequest, `"`+name+`" is not a valid request.`)}
	}
	w := &writer{b: make([]byte, 0, 512)}
	w.b = append(w.b, `{"jsonrpc":"2.0","id":`...)
	w.b = echo(w.b, id)
	w.b = append(w.b, `,"result":{"rpc_version":`...)
	w.b = strconv.AppendUint(w.b, rpcVersionZMQ, 10)
	// The top before answering, for the repeat kept below.
	keep := name == "get_output_distribution" && len(msg) <= maxRepeatRequest
	var top chain.NextBlock
	if keep {
		top = s.chain.NextBlockFacts()
	}
	fail, err := h.serve(s, params, w)
	if err != nil {
		return answer{b: errorAnswer(nil, statusBadJSON, err.Error())}
	}
	if fail != "" {
		return answer{b: errorAnswer(id, statusFailed, fail)}
	}
	w.b = append(w.b, "}}"...)
	if keep && len(w.parts) == 0 {
		// Kept only if the top did not move while answering: the answer
		// is then the one for top (the distribution's own cache checks
		// the block it read).
		if now := s.chain.NextBlockFacts(); now.Height == top.Height && now.Top.Hash == top.Top.Hash {
			s.repeat.Store(&repeatAnswer{request: bytes.Clone(msg), top: top.Top.Hash, height: top.Height, answer: w.b})
		}
	}
	return answer{parts: w.parts, b: w.b, n: w.n + len(w.b)}
}

// maxRepeatRequest bounds the requests whose answer is kept for a repeat:
// a light wallet's get_output_distribution is about 150 bytes.
const maxRepeatRequest = 1024

// repeatAnswer is an answer kept for the same request bytes at the same
// top block. It is never changed once stored: connections write it out
// concurrently.
type repeatAnswer struct {
	request []byte
	top     cryptonote.Hash
	height  uint64
	answer  []byte
}

// errorAnswer is FullMessage::getResponse for a failed message: id nil
// writes null (BAD_JSON, REQUEST_TOO_LARGE).
func errorAnswer(id raw, status, message string) []byte {
	b := make([]byte, 0, 96+len(message))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		b = append(b, "null"...)
	} else {
		b = echo(b, id)
	}
	b = append(b, `,"error":{"code":1,"error_str":`...)
	b = writeString(b, status)
	b = append(b, `,"message":`...)
	b = writeString(b, message)
	return append(b, "}}"...)
}

// writer appends a result's members (each after a comma: rpc_version is
// always first).
// writer builds an answer: b, after parts, pieces it refers to without
// copying them (ref), n bytes together.
type writer struct {
	b     []byte
	parts [][]byte
	n     int
}

// refMin: pieces shorter than this are copied (a reference costs a
// 24-byte slice header and a write of its own into the connection's
// buffer, where a copy costs the piece's bytes).
const refMin = 512

// ref appends p to the answer without copying it: p must never change
// while the answer lives (kept rendered blocks never do).
func (w *writer) ref(p []byte) {
	if len(p) < refMin {
		w.b = append(w.b, p...)
		return
	}
	if len(w.b) > 0 {
		// b's backing array goes on after it: what is appended next
		// lands past this piece.
		w.parts = append(w.parts, w.b[:len(w.b):len(w.b)])
		w.n += len(w.b)
		w.b = w.b[len(w.b):]
	}
	w.parts = append(w.parts, p)
	w.n += len(p)
}

// answer is a rendered answer: parts, then b; n bytes in all.
type answer struct {
	parts [][]byte
	b     []byte
	n     int
}

// size is the answer's length.
func (a answer) size() int {
	if a.parts == nil {
		return len(a.b)
	}
	return a.n
}

// bytes returns the answer in one slice (b itself when it has no parts).
func (a answer) bytes() []byte {
	if a.parts == nil {
		return a.b
	}
	out := make([]byte, 0, a.n)
	for _, p := range a.parts {
		out = append(out, p...)
	}
	return append(out, a.b...)
}

func (w *writer) key(k string) {
	w.b = append(w.b, ',', '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}
func (w *writer) uint(k string, v uint64) {
	w.key(k)
	w.b = strconv.AppendUint(w.b, v, 10)
}
func (w *writer) uints(k string, v []uint64) {
	w.key(k)
	w.b = append(w.b, '[')
	for i, x := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = strconv.AppendUint(w.b, x, 10)
	}
	w.b = append(w.b, ']')
}

// header writes BlockHeaderResponse's object (json_object.cpp order).
func (w *writer) header(m chaindb.BlockMeta, height uint64) {
	b := w.b
	b = append(b, `{"major_version":`...)
	b = strconv.AppendUint(b, uint64(m.MajorVersion), 10)
	b = append(b, `,"minor_version":`...)
	b = strconv.AppendUint(b, uint64(m.MinorVersion), 10)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendUint(b, m.Timestamp, 10)
	b = append(b, `,"prev_id":"`...)
	b = hex.AppendEncode(b, m.PrevHash[:])
	b = append(b, `","nonce":`...)
	b = strconv.AppendUint(b, uint64(m.Nonce), 10)
	b = append(b, `,"height":`...)
	b = strconv.AppendUint(b, m.Height, 10)
	b = append(b, `,"depth":`...)
	b = strconv.AppendUint(b, height-m.Height-1, 10)
	b = append(b, `,"hash":"`...)
	b = hex.AppendEncode(b, m.Hash[:])
	b = append(b, `","difficulty":`...)
	b = strconv.AppendUint(b, m.Difficulty.Lo, 10)
	b = append(b, `,"reward":`...)
	b = strconv.AppendUint(b, m.Reward, 10)
	w.b = append(b, '}')
}

// Parameter readers, with json_object.cpp's checks and texts.

func paramsObject(params raw) (object, error) {
	if params.kind() != kindObject {
		return object{}, wrongType("json object")
	}
	return parseObject(params), nil
}

func getUint64(o object, key string) (uint64, error) {
	v, ok := o.find(key)
	if !ok {
		return 0, missingKey(key)
	}
	return toUint64(v)
}

func toUint64(v raw) (uint64, error) {
	if v.kind() != kindNumber {
		return 0, wrongType("unsigned integer")
	}
	n := parseNumber(v)
	if n.double || (n.neg && n.u != 0) {
		return 0, wrongType("unsigned integer")
	}
	return n.u, nil
}

func toHash(v raw) (out [32]byte, err error) {
	if v.kind() != kindString {
		return out, wrongType("string")
	}
	s, _, _ := decodeString(v, 0, true)
	if len(s) != 64 {
		return out, errBadInput
	}
	if _, err := hex.Decode(out[:], []byte(s)); err != nil {
		return out, errBadInput
	}
	return out, nil
}

func getHash(o object, key string) ([32]byte, error) {
	v, ok := o.find(key)
	if !ok {
		return [32]byte{}, missingKey(key)
	}
	return toHash(v)
}

func getArray(o object, key string) ([]raw, error) {
	v, ok := o.find(key)
	if !ok {
		return nil, missingKey(key)
	}
	if v.kind() != kindArray {
		return nil, wrongType("json array")
	}
	return elements(v), nil
}

// publicKeyImages are the key images the given pool entries spend.
func publicKeyImages(entries []*txpool.Entry) map[cryptonote.Key]bool {
	out := map[cryptonote.Key]bool{}
	for _, e := range entries {
		for _, in := range e.Tx.Inputs {
			if k, ok := in.(cryptonote.TxInToKey); ok {
				out[k.KeyImage] = true
			}
		}
	}
	return out
}

// The methods.

func (s *Server) getHeight(_ raw, w *writer) (string, error) {
	w.uint("height", s.chain.Height())
	return "", nil
}

func (s *Server) getRPCVersion(_ raw, w *writer) (string, error) {
	w.uint("version", rpcVersionZMQ)
	return "", nil
}

const noBlock = "Requested block does not exist"

// errStore is a store failure; monerod has none to answer, so it answers
// Failed with this text.
const errStore = "gonero: the store failed"

func (s *Server) metaByHeight(h uint64) (m chaindb.BlockMeta, ok bool) {
	err := s.chain.View(func(r *chaindb.Reader) error {
		var err error
		m, err = r.MetaByHeight(h)
		return err
	})
	return m, err == nil
}

// metaByHash finds a block on the main chain, then among the alternative
// blocks, as monerod's get_block_by_hash. An alternative block's header
// is its own but for the difficulty: getBlockHeaderByHash asks
// block_difficulty for its height, the main chain's block there (0 when
// the main chain is shorter).
func (s *Server) metaByHash(id cryptonote.Hash) (m chaindb.BlockMeta, ok bool) {
	err := s.chain.View(func(r *chaindb.Reader) error {
		var err error
		if m, err = r.MetaByHash(id); err == nil {
			return nil
		}
		alt, err := r.AltBlock(id)
		if err != nil {
			return err
		}
		m = alt.Meta
		m.Difficulty = u128.U128{}
		if main, err := r.MetaByHeight(m.Height); err == nil {
			m.Difficulty = main.Difficulty
		}
		return nil
	})
	return m, err == nil
}

func (s *Server) getLastBlockHeader(_ raw, w *writer) (string, error) {
	h := s.chain.Height()
	if h == 0 {
		return noBlock, nil
	}
	m, ok := s.metaByHeight(h - 1)
	if !ok {
		return noBlock, nil
	}
	w.key("header")
	w.header(m, h)
	return "", nil
}

func (s *Server) getBlockHeaderByHash(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	id, err := getHash(o, "hash")
	if err != nil {
		return "", err
	}
	h := s.chain.Height()
	m, ok := s.metaByHash(id)
	if !ok {
		return noBlock, nil
	}
	w.key("header")
	w.header(m, h)
	return "", nil
}

func (s *Server) getBlockHeaderByHeight(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	height, err := getUint64(o, "height")
	if err != nil {
		return "", err
	}
	h := s.chain.Height()
	m, ok := s.metaByHeight(height)
	if !ok {
		return noBlock, nil
	}
	w.key("header")
	w.header(m, h)
	return "", nil
}

func (s *Server) getBlockHeadersByHeight(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	els, err := getArray(o, "heights")
	if err != nil {
		return "", err
	}
	heights := make([]uint64, len(els))
	for i, e := range els {
		if heights[i], err = toUint64(e); err != nil {
			return "", err
		}
	}
	if s.cfg.Restricted && len(heights) > restrictedMaxBlockHeaders {
		return "Too many block headers requested in restricted mode", nil
	}
	h := s.chain.Height()
	w.key("headers")
	w.b = append(w.b, '[')
	for i, height := range heights {
		m, ok := s.metaByHeight(height)
		if !ok {
			return "A requested block does not exist", nil
		}
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.header(m, h)
	}
	w.b = append(w.b, ']')
	return "", nil
}

func (s *Server) keyImagesSpent(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	els, err := getArray(o, "key_images")
	if err != nil {
		return "", err
	}
	kis := make([]cryptonote.Key, len(els))
	for i, e := range els {
		if kis[i], err = toHash(e); err != nil {
			return "", err
		}
	}
	if s.cfg.Restricted && len(kis) > restrictedMaxKeyImages {
		return "Too many key images queried in restricted mode", nil
	}
	chainSpent := make([]bool, len(kis))
	if err := s.chain.View(func(r *chaindb.Reader) error {
		for i, ki := range kis {
			_, spent, err := r.KeyImageSpent(ki)
			if err != nil {
				return err
			}
			chainSpent[i] = spent
		}
		return nil
	}); err != nil {
		return errStore, nil
	}
	// The pool's check counts only broadcast transactions (monerod's
	// check_for_key_images skips do_not_relay and stem ones).
	var inPool map[cryptonote.Key]bool
	status := make([]uint64, len(kis))
	for i, ki := range kis {
		if chainSpent[i] {
			status[i] = 1 // SPENT_IN_BLOCKCHAIN
			continue
		}
		if s.pool == nil || !s.pool.KeyImageInPool(ki) {
			continue
		}
		if inPool == nil {
			inPool = publicKeyImages(s.pool.PublicEntries())
		}
		if inPool[ki] {
			status[i] = 2 // SPENT_IN_POOL
		}
	}
	w.uints("spent_status", status)
	return "", nil
}

func (s *Server) getTxGlobalOutputIndices(params raw, w *writer) (string, error) {
	o, err := paramsObject(params)
	if err != nil {
		return "", err
	}
	id, err := getHash(o, "tx_hash")
	if err != nil {
		return "", err
	}
	var idx []uint64
	if err := s.chain.View(func(r *chaindb.Reader) error {
		var err error
		idx, err = r.TxOutputIndexes(id)
		return err
	}); err != nil {
		return "core::get_tx_outputs_gindexs() returned false", nil
	}
	w.uints("output_indices", idx)
	return "", nil
}
