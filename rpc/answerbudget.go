package rpc

import (
	"errors"

	"github.com/gonero/gonero/httpd"
)

// errAnswerRefused is returned through a snapshot's read when the memory
// budget refused the answer being gathered.
var errAnswerRefused = errors.New("rpc: the memory budget refused the answer")

// Answers claimed as they are built (issue 33). httpd claims an answer's
// bytes from the node's memory budget once the route returns it; an
// answer that grows with its request or with the chain (a header range,
// /getblocks.bin, get_outs, a pool listing) would be built whole first,
// and a request could make the node allocate many megabytes only to have
// them refused. So those handlers claim as they gather: a cheap bound of
// the answer's size before reading anything where the count is known
// (a range of heights, a list of indexes), else item by item, and stop
// with monerod's busy answer (status "BUSY", JSON-RPC -9 "Core is busy",
// which wallets retry) at the first claim refused, dropping what they
// gathered. What was claimed counts towards the answer when httpd claims
// it (httpd.Request.Reserve), so nothing is claimed twice.
//
// monerod's own caps (restricted.go, maxSyncBytes, ...) are applied first
// and keep their messages; below them the budget decides.

// Bytes claimed for one item of an answer before it is built. They are
// upper estimates of the item's share of the answer (what the client is
// sent); the Go values gathered on the way are of the same order, and the
// answer's exact size is claimed by httpd beyond what was reserved.
const (
	// headerAnswerBytes: one block_header_response in JSON (about 770
	// bytes with the pow hash and the long-term weight; more with
	// fill_pow_hash's hash).
	headerAnswerBytes = 1024
	// outAnswerBytes: one outkey of /get_outs (key, mask and txid as
	// hex, height, unlocked); outBinAnswerBytes: one of /get_outs.bin
	// (the same in binary, with its field names), and the lookup's
	// rpctypes.OutKey.
	outAnswerBytes    = 320
	outBinAnswerBytes = 192
	// distributionEntryBytes: one entry of an output distribution in
	// JSON (a decimal number and its comma) and its uint64 gathered;
	// distributionBinEntryBytes the same in binary (8 bytes, or a varint).
	distributionEntryBytes    = 29
	distributionBinEntryBytes = 17
	// histogramEntryBytes: one entry of get_output_histogram.
	histogramEntryBytes = 160
	// hashAnswerBytes: one block id of /gethashes.bin, and its block
	// meta read on the way.
	hashAnswerBytes = 160
	// backlogEntryBytes: one get_txpool_backlog entry (24 bytes, escaped
	// in the answer's string) and its gathered value.
	backlogEntryBytes = 96
	// idAnswerBytes: one block or transaction id in an answer (64 hex
	// digits and quotes, or 32 bytes escaped) and the id gathered.
	idAnswerBytes = 112
	// txListingBytes: what a listed transaction adds besides its blob
	// (hashes, heights, flags, the JSON framing).
	txListingBytes = 512
	// blockAnswerBytesPerByte and blockAnswerFixedBytes: get_block's
	// answer, per byte of the block's blob and beside it. The blob is
	// written in hex (2 bytes a byte) and as JSON text, escaped inside the
	// answer's string: a transaction id there (32 bytes) takes some 210
	// bytes with its hex in tx_hashes, an extra byte up to 7 ("255, " and
	// its hex). The header, the key names and the JSON text of a block
	// without transactions take about 2 kB (a regtest block's answer is
	// 2.3 kB for its 130-byte blob, 2.9 kB with three transactions).
	blockAnswerBytesPerByte = 8
	blockAnswerFixedBytes   = 2048
	// minerBacklogEntryBytes: one pool transaction get_miner_data
	// gathers (its txpool.Entry's figures and a backlog entry), and its
	// entry in the answer (id in hex, weight, fee).
	minerBacklogEntryBytes = 160
	// publicNodeBytes: one /get_public_nodes entry (host, last seen, RPC
	// port and credits) and the peer entry gathered.
	publicNodeBytes = 192
)

// A binary (epee) request body is decoded into a tree of values before a
// handler reads it, about 111 bytes a value or object, and a value can
// take one byte of the body (an empty object in an array): a 1 MiB body
// decodes into up to the decoder's limits (rpctypes.BinRequestLimits,
// 2^17 each of objects, fields and strings: some 45 MB). So the decoded
// form is claimed, from the body's size, before it is decoded, and counts
// towards the answer's claim as what a handler claims does (the tree is
// mostly dropped by the time the answer is made). A wallet's bodies are
// a few kB: a few hundred kB claimed.
const (
	binParseFactor = 128
	binParseMost   = 48 << 20
)

// binParseBytes is what decoding a binary body of n bytes is claimed at.
func binParseBytes(n int) int { return min(binParseFactor*n, binParseMost) }

// answerClaim claims an answer's bytes as they are gathered. A nil
// *answerClaim grants everything.
type answerClaim struct {
	req     *httpd.Request // nil: no budget (tests, ZMQ)
	limit   int            // > 0: the answer may not pass it (a batch's bound)
	claimed int            // bytes claimed so far
	used    int            // bytes gathered in this attempt

	// refused: the budget refused a claim; overLimit: the answer passed
	// limit.
	refused, overLimit bool
}

// add counts n more bytes of the answer, claiming what was not claimed
// yet; false: refused, nothing more taken, and the handler must drop what
// it gathered and answer busy.
func (a *answerClaim) add(n int) bool {
	if a == nil || n <= 0 {
		return true
	}
	if a.limit > 0 && a.used+n > a.limit {
		a.overLimit = true
		return false
	}
	a.used += n
	if a.used <= a.claimed {
		return true
	}
	need := a.used - a.claimed
	if a.req != nil && !a.req.Reserve(need) {
		a.used -= n
		a.refused = true
		return false
	}
	a.claimed += need
	return true
}

// restart begins the answer again (a snapshot read again): what was
// claimed stays claimed and covers the new attempt.
func (a *answerClaim) restart() {
	if a != nil {
		a.used = 0
	}
}

// claimItems counts count items of per bytes each of a JSON-RPC call's
// answer (see answerClaim), with no overflow: a count past what any budget
// holds is refused as such. false: the call must answer errCoreBusy (or,
// past a batch's bound, anything: the batch answers for it).
func (c *call) claimItems(count uint64, per int) bool {
	return c.mem.addItems(count, per)
}

// addItems is add for count items of per bytes (a count past any budget
// claims 1 TiB, which any bound refuses).
func (a *answerClaim) addItems(count uint64, per int) bool {
	const most = 1 << 40
	if per > 0 && count > most/uint64(per) {
		return a.add(most)
	}
	return a.add(int(count) * per)
}
