package rpc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"runtime"
	"slices"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/miner"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/rpctypes"
	"github.com/gonero/gonero/txpool"
)

// The mining-pool endpoints: block templates and their submission, miner
// data, proof-of-work hashes, merge mining, and the node's own miner
// (core_rpc_server.cpp, v0.18.0.0).

// miningEndpoints are the mining methods and paths (endpoints.go).
func miningEndpoints() []endpoint {
	return []endpoint{
		{names: []string{"get_block_template", "getblocktemplate"}, access: accessPublic, method: getBlockTemplate},
		{names: []string{"submit_block", "submitblock"}, access: accessPublic, method: submitBlock, deepParams: true},
		{names: []string{"get_miner_data"}, access: accessPublic, method: getMinerData},
		{names: []string{"calc_pow"}, access: accessRefused, method: calcPow},
		// Capped: restrictedAuxPowCount chains, nonces up to restrictedMaxAuxNonce.
		{names: []string{"add_aux_pow"}, access: accessCapped, method: addAuxPow, deepParams: true},
		{names: []string{"on_get_block_hash", "on_getblockhash"}, access: accessPublic, method: getBlockHash, deepParams: true},
		{names: []string{"get_coinbase_tx_sum"}, access: accessRefused, method: getCoinbaseTxSum},
		{names: []string{"get_alternate_chains"}, access: accessRefused, method: getAlternateChains},
		// Refused on a restricted listener since 0.18.4.
		{names: []string{"/get_alt_blocks_hashes"}, access: accessRefused, path: (*Server).serveAltBlocksHashes},
		{names: []string{"/start_mining"}, access: accessRefused, path: (*Server).serveStartMining},
		{names: []string{"/stop_mining"}, access: accessRefused, path: (*Server).serveStopMining},
		{names: []string{"/mining_status"}, access: accessRefused, path: (*Server).serveMiningStatus},
	}
}

// Codes of the mining errors (core_rpc_server_error_codes.h).
const (
	codeTooBigReserveSize  = -3
	codeWrongBlockblob     = -6
	codeWrongBlockblobSize = -10
	codeMiningToSubaddress = -12
	maxReserveSize         = 255 // get_block_template's reserve_size
	maxExtraNonceHex       = 510 // get_block_template's extra_nonce, in hex digits
	blockSizeSanityLeeway  = 100 // BLOCK_SIZE_SANITY_LEEWAY
)

var (
	errWrongBlockblob   = &Error{Code: codeWrongBlockblob, Message: "Wrong block blob"}
	errMiningSubaddress = &Error{Code: codeMiningToSubaddress, Message: "Mining to subaddress is not supported yet"}
	errCoreBusyTemplate = &Error{Code: -9, Message: "Core is busy"}
	errWrongParam       = &Error{Code: codeWrongParam, Message: "Wrong param"}
	errExpectedHeight   = &Error{Code: codeWrongParam, Message: "Wrong parameters, expected height"}
	errEmptyAuxPow      = &Error{Code: codeWrongParam, Message: "Empty aux pow hash vector"}
	errNoAuxNonce       = &Error{Code: codeInternalError, Message: "Failed to find a suitable nonce"}
)

// decodeHexBlob is epee's parse_hexstr_to_binbuff: an even number of hex
// digits, either case.
func decodeHexBlob(s string) ([]byte, bool) {
	if len(s)%2 != 0 {
		return nil, false
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// parseBlockBlob parses a block blob as monerod does. monerod 0.18.0 read a
// varint at the end of the data as 0, so a blob that ended where its
// tx_hashes count should be was a block without transactions; 0.18.5.3's
// binary_archive refuses it (a varint must have at least one byte). The
// block's own serialization is returned with it.
func parseBlockBlob(blob []byte) (*cryptonote.Block, []byte, error) {
	blk, err := cryptonote.ParseBlock(blob)
	if err != nil {
		return nil, nil, err
	}
	return blk, blob, nil
}

// blockSizeOK is core::check_incoming_block_size: a blob no longer than the
// block weight limit (plus a leeway) before it is even parsed.
func (s *Server) blockSizeOK(blob []byte) bool {
	next := s.chain.NextBlockFacts()
	return uint64(len(blob)) <= consensus.BlockWeightLimit(next.EffectiveMedian)+blockSizeSanityLeeway
}

// getBlockTemplate is get_block_template: a block for a pool to mine,
// paying wallet_address, with reserve_size zero bytes (or the bytes of
// extra_nonce) in the miner transaction's extra nonce for the pool's own
// nonces, at reserved_offset in the blob. The block is built by the node's
// miner from the verified pool, the same builder generateblocks uses.
//
// Differences, deliberate: prev_block must be the top block (monerod also
// builds templates on any other known block, which gonero's template
// builder does not); another known block gets the answer monerod gives an
// unknown one. monerod keeps its last template and hands the same miner
// transaction out again while nothing changed; gonero builds a new one
// (with a new transaction key) each time.
func getBlockTemplate(c *call) (func(*epeejson.Writer), *Error) {
	req, e := rpctypes.ParseBlockTemplateRequest(c.params)
	if e != nil {
		return nil, e
	}
	s := c.server
	if !s.peers.Synchronized() {
		return nil, errCoreBusyTemplate
	}
	if req.ReserveSize > maxReserveSize {
		return nil, &Error{Code: codeTooBigReserveSize, Message: "Too big reserved size, maximum 255"}
	}
	if req.ReserveSize != 0 && req.ExtraNonce != "" {
		return nil, &Error{Code: codeWrongParam, Message: "Cannot specify both a reserve_size and an extra_nonce"}
	}
	if len(req.ExtraNonce) > maxExtraNonceHex {
		return nil, &Error{Code: codeTooBigReserveSize, Message: "Too big extra_nonce size, maximum 510 hex chars"}
	}
	to, err := address.ParseFor(req.WalletAddress, s.network)
	if req.WalletAddress == "" || err != nil {
		return nil, errWalletAddress
	}
	if to.Kind == address.Subaddress {
		return nil, errMiningSubaddress
	}
	nonce := make([]byte, req.ReserveSize)
	if req.ExtraNonce != "" {
		var ok bool
		if nonce, ok = decodeHexBlob(req.ExtraNonce); !ok {
			return nil, &Error{Code: codeWrongParam, Message: "Parameter extra_nonce should be a hex string"}
		}
	}
	if req.PrevBlock != "" {
		prev, err := cryptonote.ParseHash(req.PrevBlock)
		if err != nil {
			return nil, errInvalidPrev
		}
		if top := s.chain.Top().Hash; prev != top {
			s.log.Info("get_block_template: prev_block is not the top block; gonero builds templates on the top only",
				"prev_block", prev, "top", top, "known", s.chain.HasBlock(prev))
			return nil, errNoTemplate
		}
	}
	t, err := s.miner.BlockTemplate(to, nonce)
	if err != nil {
		s.log.Error("get_block_template: no block template", "err", err)
		return nil, errNoTemplate
	}
	blob := t.Block.Serialize()
	res := &rpctypes.BlockTemplateResponse{
		Blob: blob, HashingBlob: t.Block.HashingBlob(), Difficulty: t.Difficulty,
		ExpectedReward: t.Reward, Height: t.Height, PrevHash: t.Block.PrevID,
		SeedHeight: consensus.SeedHeight(t.Height), Status: "OK",
	}
	if t.Block.MajorVersion >= consensus.RandomXVersion {
		res.SeedHash = t.Seed.String()
		if next := s.chain.HashAt(consensus.NextSeedHeight(t.Height)); next != t.Seed {
			res.NextSeedHash = next.String()
		}
	}
	if len(nonce) > 0 {
		// Right after the tx public key, its nonce tag and length
		// (core_rpc_server::get_block_template).
		pub := t.Block.MinerTx.Extra[1:33]
		at := bytes.Index(blob, pub)
		if at <= 0 {
			return nil, errNoTemplate
		}
		res.ReservedOffset = uint64(at) + 32 + 2
	}
	return res.Write, nil
}

// submitBlock is submit_block: a mined block, its transactions taken from
// the pool, goes through the node's block path (the chain, then P2P relay
// if it joined the main chain).
//
// monerod's answers, surprising ones included: a block whose parent is
// unknown (kept by nobody) and a block already known are "OK" — its
// handle_block_found fails only on a block that fails verification — but
// either is refused with -7 if it names a transaction not in the pool.
func submitBlock(c *call) (func(*epeejson.Writer), *Error) {
	blobs, e := c.params.BareStrings()
	if e != nil {
		return nil, e
	}
	s := c.server
	if !s.peers.Synchronized() {
		busy := &rpctypes.SubmitBlockResponse{Status: statusBusy}
		return busy.Write, nil
	}
	if len(blobs) != 1 {
		return nil, errWrongParam
	}
	blob, ok := decodeHexBlob(blobs[0])
	if !ok {
		return nil, errWrongBlockblob
	}
	blk, canonical, err := parseBlockBlob(blob)
	if err != nil {
		return nil, errWrongBlockblob
	}
	id, err := blk.ID()
	if err != nil {
		return nil, errWrongBlockblob
	}
	if !s.blockSizeOK(blob) {
		return nil, &Error{Code: codeWrongBlockblobSize, Message: "Block bloc size is too big, rejecting block"} // sic
	}
	res, err := s.miner.Submit(blk, canonical)
	switch {
	case err == nil:
		s.log.Info("submitted block added", "height", res.Meta.Height, "hash", res.Meta.Hash, "main_chain", res.MainChain)
	case errors.Is(err, chain.ErrOrphan), errors.Is(err, chain.ErrAlreadyInChain):
		s.log.Info("submitted block not added", "err", err)
	default:
		s.log.Info("submitted block refused", "err", err)
		return nil, errNotAccepted
	}
	done := &rpctypes.SubmitBlockResponse{Status: statusOK, BlockID: id.String()}
	return done.Write, nil
}

// getMinerData is get_miner_data: what a pool needs to build its own
// templates.
func getMinerData(c *call) (func(*epeejson.Writer), *Error) {
	s := c.server
	if !s.peers.Synchronized() {
		return nil, errCoreBusyTemplate
	}
	next := s.chain.NextBlockFacts()
	res := &rpctypes.MinerDataResponse{
		Generated: next.Top.GeneratedCoins, Difficulty: next.Difficulty, Height: next.Height,
		Major: s.network.VersionAt(next.Height), MedianWeight: next.EffectiveMedian, PrevID: next.Top.Hash,
	}
	if s.network.VersionAt(next.Height-1) >= consensus.RandomXVersion {
		res.SeedHash = s.chain.HashAt(consensus.SeedHeight(next.Height))
	}
	// tx_memory_pool::get_block_template_backlog: the transactions relayed
	// to everyone (not kept back, not in their stem phase), in the pool
	// table's order, up to 112.5 % of the median weight, best paying first
	// when they weigh more (txpool.CapTemplateBacklog).
	// The backlog grows with the pool (capped at a block's worth only
	// once gathered): claimed from the pool's size before it is copied.
	if s.pool != nil && !c.claimItems(uint64(s.pool.Len()), minerBacklogEntryBytes) {
		return nil, errCoreBusy
	}
	for _, e := range s.visiblePool(true) {
		res.Backlog = append(res.Backlog, rpctypes.MinerBacklogEntry{ID: e.ID, Weight: e.Weight, Fee: e.Fee})
	}
	res.Backlog = txpool.CapTemplateBacklog(res.Backlog, next.EffectiveMedian,
		func(e rpctypes.MinerBacklogEntry) (uint64, uint64) { return e.Weight, e.Fee })
	return res.Write, nil
}

// calcPow is calc_pow: the proof-of-work hash of a hashing blob at a height
// and version, with the given seed or the main chain's. Refused on a
// restricted listener (miningEndpoints).
//
// Difference, deliberate: monerod exits the whole process when asked for a
// version-7 (CryptoNight v1) hash of a blob shorter than 43 bytes; this
// answers "can't produce valid response." instead.
func calcPow(c *call) (func(*epeejson.Writer), *Error) {
	major, e := c.params.Uint8("major_version")
	if e != nil {
		return nil, e
	}
	height, e := c.params.Uint64("height")
	if e != nil {
		return nil, e
	}
	blobText, e := c.params.String("block_blob")
	if e != nil {
		return nil, e
	}
	seedText, e := c.params.String("seed_hash")
	if e != nil {
		return nil, e
	}
	s := c.server
	blob, ok := decodeHexBlob(blobText)
	if !ok {
		return nil, errWrongBlockblob
	}
	if !s.blockSizeOK(blob) {
		return nil, &Error{Code: codeWrongBlockblobSize, Message: "Block blob size is too big, rejecting block"}
	}
	var seed cryptonote.Hash
	if seedText != "" {
		b, ok := decodeHexBlob(seedText)
		if !ok || len(b) != len(seed) {
			return nil, &Error{Code: codeWrongParam, Message: "Wrong seed hash"}
		}
		copy(seed[:], b)
	} else {
		// get_pending_block_id_by_height: the zero hash above the chain.
		seed = s.chain.HashAt(consensus.SeedHeight(height))
	}
	hasher := s.chain.PoW()
	if hasher == nil {
		return nil, errInternal("no proof-of-work hasher configured")
	}
	h, err := consensus.BlockPoWHash(hasher, height, major, seed, blob)
	if err != nil {
		s.log.Error("calc_pow", "err", err)
		return nil, errInternal("can't produce valid response.")
	}
	return func(w *epeejson.Writer) { w.String(hex.EncodeToString(h[:])) }, nil
}

// auxSlot is get_aux_slot: the merkle-tree slot of a merge-mined chain for
// a nonce, from SHA-256(id ‖ nonce ‖ 'm').
func auxSlot(id cryptonote.Hash, nonce uint32, n uint32) uint32 {
	var buf [32 + 4 + 1]byte
	copy(buf[:], id[:])
	binary.LittleEndian.PutUint32(buf[32:], nonce)
	buf[36] = 'm' // HASH_KEY_MM_SLOT
	sum := sha256.Sum256(buf[:])
	return binary.LittleEndian.Uint32(sum[:4]) % n
}

// encodeMMDepth is encode_mm_depth (with its cap of 16 bits).
func encodeMMDepth(n, nonce uint32) uint32 {
	bits := uint32(1)
	for (1<<bits) < n && bits < 16 {
		bits++
	}
	return (bits - 1) | ((n - 1) << 3) | (nonce << (3 + bits))
}

// auxNonce is the first nonce that gives each chain its own slot.
func auxNonce(ids []cryptonote.Hash, last uint32) (uint32, bool) {
	n := uint32(len(ids))
	slots := make([]bool, n)
next:
	for nonce := uint32(0); nonce <= last; nonce++ {
		clear(slots)
		for _, id := range ids {
			slot := auxSlot(id, nonce, n)
			if slots[slot] {
				continue next
			}
			slots[slot] = true
		}
		return nonce, true
	}
	return 0, false
}

// maxAuxNonce is the last nonce add_aux_pow tries; maxAuxChainsSearched
// the most merge-mined chains gonero searches a nonce for. Since 0.18.4 a
// restricted listener takes at most restrictedAuxPowCount chains and tries
// nonces up to restrictedMaxAuxNonce.
const (
	maxAuxNonce           = 65535
	maxAuxChainsSearched  = 256
	restrictedAuxPowCount = 10
	restrictedMaxAuxNonce = 16384
)

// addAuxPow is add_aux_pow (merge mining): it finds the first nonce that
// gives every merge-mined chain its own slot, puts the merkle root of the
// chains' hashes into the template's miner transaction and answers the new
// template. As in monerod, the root is the tree hash of the hashes in the
// order given (not by slot).
func addAuxPow(c *call) (func(*epeejson.Writer), *Error) {
	blobText, e := c.params.String("blocktemplate_blob")
	if e != nil {
		return nil, e
	}
	aux, e := rpctypes.ParseAuxPow(c.params)
	if e != nil {
		return nil, e
	}
	if c.restricted && len(aux) > restrictedAuxPowCount {
		return nil, &Error{Code: codeRestricted, Message: "Too many aux pow hashes"}
	}
	if len(aux) == 0 {
		return nil, errEmptyAuxPow
	}
	ids := make([]cryptonote.Hash, len(aux))
	hashes := make([]cryptonote.Hash, len(aux))
	for i, a := range aux {
		var err error
		if ids[i], err = cryptonote.ParseHash(a.ID); err != nil {
			return nil, &Error{Code: codeWrongParam, Message: "Invalid aux pow id"}
		}
		if hashes[i], err = cryptonote.ParseHash(a.Hash); err != nil {
			return nil, &Error{Code: codeWrongParam, Message: "Invalid aux pow hash"}
		}
	}
	n := uint32(len(aux))
	nonce, found := uint32(0), false
	// Beyond maxAuxChainsSearched chains no nonce can realistically give
	// each its own slot (the chance is n!/n^n per nonce): monerod searches
	// all 65536 nonces in vain; gonero does not spend that time.
	if len(aux) <= maxAuxChainsSearched {
		last := uint32(maxAuxNonce)
		if c.restricted {
			last = restrictedMaxAuxNonce
		}
		nonce, found = auxNonce(ids, last)
	}
	if !found {
		return nil, errNoAuxNonce
	}
	root := cryptonote.TreeHash(hashes)
	blob, ok := decodeHexBlob(blobText)
	if !ok {
		return nil, &Error{Code: codeWrongParam, Message: "Invalid blocktemplate_blob"}
	}
	blk, _, err := parseBlockBlob(blob)
	if err != nil {
		return nil, &Error{Code: codeWrongBlockblob, Message: "Wrong blocktemplate_blob"}
	}
	extra, err := withMergeMiningRoot(blk.MinerTx.Extra, root)
	if err != nil {
		return nil, &Error{Code: codeInternalError, Message: "Error removing existing merkle root"}
	}
	blk.MinerTx.Extra = extra
	res := &rpctypes.AddAuxPowResponse{AuxPow: aux, Blob: blk.Serialize(), HashingBlob: blk.HashingBlob(),
		MerkleRoot: root, Depth: encodeMMDepth(n, nonce)}
	return res.Write, nil
}

// getBlockHash is on_get_block_hash: the id of the main-chain block at a
// height, params a one-element array. A height above the chain is -2 (0.18.0
// filled the error but answered the zero hash; 0.18.5.3 returns the error).
func getBlockHash(c *call) (func(*epeejson.Writer), *Error) {
	heights, e := c.params.BareUint64s()
	if e != nil {
		return nil, e
	}
	if len(heights) != 1 {
		return nil, errExpectedHeight
	}
	if height := c.server.chain.Height(); heights[0] >= height {
		return nil, errTooBigHeight(heights[0], height-1)
	}
	id := c.server.chain.HashAt(heights[0])
	return func(w *epeejson.Writer) { w.String(id.String()) }, nil
}

// getCoinbaseTxSum is get_coinbase_tx_sum: the coins emitted and the fees
// paid by count blocks from height, read from the blocks' stored figures
// (the emission is the growth of already-generated coins; the fees are the
// rest of the miner transactions' amounts).
func getCoinbaseTxSum(c *call) (func(*epeejson.Writer), *Error) {
	height, e := c.params.Uint64("height")
	if e != nil {
		return nil, e
	}
	count, e := c.params.Uint64("count")
	if e != nil {
		return nil, e
	}
	res := &rpctypes.CoinbaseTxSumResponse{Status: "OK"}
	if e := c.view(func(r *chaindb.Reader, chainHeight uint64) *Error {
		if height >= chainHeight || count > chainHeight {
			res.Status = "height or count is too large"
			return nil
		}
		if count == 0 {
			return nil
		}
		end := min(height+count, chainHeight) // monerod stops at the chain's end
		metas, err := r.MetasInRange(height, end)
		if err != nil {
			return errInternal("can't produce valid response.")
		}
		before := uint64(0)
		if height > 0 {
			m, err := r.MetaByHeight(height - 1)
			if err != nil {
				return errInternal("can't produce valid response.")
			}
			before = m.GeneratedCoins
		}
		for _, m := range metas {
			emitted := m.GeneratedCoins - before
			before = m.GeneratedCoins
			res.Emission, _ = res.Emission.Add(u128.From64(emitted))
			res.Fees, _ = res.Fees.Add(u128.From64(m.Reward - emitted))
		}
		return nil
	}); e != nil {
		return nil, e
	}
	return res.Write, nil
}

// getAlternateChains is get_alternate_chains: each alternative chain by
// its tip (an alternative block no other one builds on), its blocks from
// the tip down, and the main-chain block it grows from. monerod lists the
// chains in hash-table order; gonero in its alternative-block order.
func getAlternateChains(c *call) (func(*epeejson.Writer), *Error) {
	var chains []rpctypes.AltChain
	status := "OK"
	if e := c.view(func(r *chaindb.Reader, _ uint64) *Error {
		chains, status = chains[:0], "OK"
		c.mem.restart()
		metas, err := r.AltBlockMetas()
		if err != nil {
			return errInternal("can't produce valid response.")
		}
		slices.SortFunc(metas, func(a, b chaindb.BlockMeta) int { return cryptonote.CompareHash32(a.Hash, b.Hash) })
		byHash := make(map[cryptonote.Hash]*chaindb.BlockMeta, len(metas))
		hasChild := make(map[cryptonote.Hash]bool, len(metas))
		for i := range metas {
			byHash[metas[i].Hash] = &metas[i]
			hasChild[metas[i].PrevHash] = true
		}
		for _, tip := range metas {
			if hasChild[tip.Hash] {
				continue
			}
			ch := rpctypes.AltChain{Tip: tip.Hash, TipHeight: tip.Height, Difficulty: tip.CumulativeDifficulty, Hashes: []cryptonote.Hash{tip.Hash}}
			for at := byHash[tip.PrevHash]; at != nil && len(ch.Hashes) <= len(metas); at = byHash[at.PrevHash] {
				ch.Hashes = append(ch.Hashes, at.Hash)
			}
			// Each tip's chain is listed whole, so the answer grows as
			// tips times their length: claimed chain by chain.
			if !c.claimItems(uint64(len(ch.Hashes)), idAnswerBytes) {
				return errCoreBusy
			}
			length := uint64(len(ch.Hashes))
			if tip.Height < length {
				status = "Error finding alternate chain attachment point"
				return nil
			}
			parent, err := r.MetaByHeight(tip.Height - length)
			if err != nil {
				status = "Error finding alternate chain attachment point"
				return nil
			}
			ch.MainParent = parent.Hash
			chains = append(chains, ch)
		}
		return nil
	}); e != nil {
		return nil, e
	}
	if status != "OK" {
		chains = chains[:0]
	}
	return func(w *epeejson.Writer) { rpctypes.WriteAltChains(w, chains, status) }, nil
}

func writePlain(res func(w *epeejson.Writer)) httpd.Response {
	w := epeejson.NewWriter(make([]byte, 0, 512))
	res(w)
	return jsonResponse(w)
}

// serveAltBlocksHashes is /get_alt_blocks_hashes: the ids of every
// alternative block, in monerod's table order (cryptonote.CompareHash32).
func (s *Server) serveAltBlocksHashes(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	if _, e := p.String("client"); e != nil {
		return badRequest()
	}
	var ids []cryptonote.Hash
	refused := false
	if err := s.store.View(func(r *chaindb.Reader) error {
		// The answer grows with the alternative blocks kept: claimed
		// from their count before their metadata is read.
		n, err := r.AltBlockCount()
		if err != nil {
			return err
		}
		if claim := (answerClaim{req: req}); !claim.addItems(n, hashAnswerBytes) {
			refused = true
			return nil
		}
		metas, err := r.AltBlockMetas()
		for _, m := range metas {
			ids = append(ids, m.Hash)
		}
		return err
	}); err != nil {
		s.log.Error("alternative blocks", "err", err)
		return httpd.Response{Status: 500, ContentType: "text/plain", Close: true}
	}
	if refused {
		return s.busyAnswer(req)
	}
	slices.SortFunc(ids, cryptonote.CompareHash32)
	return writePlain(func(w *epeejson.Writer) {
		w.BeginObject()
		if len(ids) > 0 { // monerod omits an empty array
			w.Key("blks_hashes")
			w.BeginArray()
			for _, id := range ids {
				w.String(id.String())
			}
			w.EndArray()
		}
		writeCredits(w)
		writeStatusTail(w, "OK")
		writeUntrusted(w)
		w.EndObject()
	})
}

// maxThreadsPerCore: start_mining refuses more threads than four per
// hardware thread.
const maxThreadsPerCore = 4

// serveStartMining is /start_mining: the node's own miner mines on the main
// chain, paying miner_address (not on a restricted listener).
//
// Difference, deliberate: only on regtest, as gonerod --start-mining (the
// miner hashes with light-mode RandomX, far too slow for a public network);
// elsewhere the answer is monerod's "Failed, mining not started".
func (s *Server) serveStartMining(req *httpd.Request) httpd.Response {
	p, ok := rpctypes.PathParams(req.Body)
	if !ok {
		return badRequest()
	}
	r, e := rpctypes.ParseStartMiningRequest(p)
	if e != nil {
		return badRequest()
	}
	status := func(st string) httpd.Response {
		return writePlain(func(w *epeejson.Writer) { rpctypes.WriteStatusOnly(w, st) })
	}
	if !s.peers.Synchronized() {
		return status("BUSY")
	}
	to, err := address.ParseFor(r.MinerAddress, s.network)
	if err != nil {
		return status("Failed, wrong address")
	}
	if to.Kind == address.Subaddress {
		return status("Mining to subaddress isn't supported yet")
	}
	if r.Threads > uint64(runtime.NumCPU()*maxThreadsPerCore) {
		return status("Failed, too many threads relative to CPU cores.")
	}
	if s.network != params.Regtest {
		s.log.Info("start_mining refused: gonero mines regtest chains only")
		return status("Failed, mining not started")
	}
	if err := s.miner.Start(to, int(r.Threads), r.Background, r.IgnoreBattery); err != nil {
		if errors.Is(err, miner.ErrAlreadyMining) {
			return status("Already mining")
		}
		return status("Failed, mining not started")
	}
	return status("OK")
}

// serveStopMining is /stop_mining.
func (s *Server) serveStopMining(req *httpd.Request) httpd.Response {
	if _, ok := rpctypes.PathParams(req.Body); !ok {
		return badRequest()
	}
	st := "OK"
	if err := s.miner.Stop(); err != nil {
		st = "Mining never started"
	}
	return writePlain(func(w *epeejson.Writer) { rpctypes.WriteStatusOnly(w, st) })
}

// serveMiningStatus is /mining_status.
func (s *Server) serveMiningStatus(req *httpd.Request) httpd.Response {
	if _, ok := rpctypes.PathParams(req.Body); !ok {
		return badRequest()
	}
	st := s.miner.Status()
	next := s.chain.NextBlockFacts()
	version := s.network.VersionAt(next.Height - 1) // get_current_hard_fork_version
	res := &rpctypes.MiningStatusResponse{Active: st.Active,
		BlockTarget: consensus.DifficultyTarget(version), PowAlgorithm: powAlgorithm(version)}
	res.SetDifficulty(next.Difficulty)
	if st.Active {
		res.Speed, res.ThreadsCount, res.BlockReward = st.Speed, uint64(st.Threads), st.BlockReward
		standard := st.Address
		standard.Kind = address.Standard // monerod prints the standard address of an integrated one
		res.Address = standard.String()
	}
	if st.Background {
		res.IsBackgroundMiningEnabled, res.BgIgnoreBattery = true, st.IgnoreBattery
		res.BgIdleThreshold, res.BgMinIdleSeconds, res.BgTarget = miner.BackgroundIdleThreshold, miner.BackgroundMinIdleSecs, miner.BackgroundTarget
	}
	return writePlain(res.Write)
}

// powAlgorithm is mining_status's name of the proof of work of a version.
func powAlgorithm(version uint8) string {
	switch {
	case version < 7:
		return "Cryptonight"
	case version == 7:
		return "CNv1 (Cryptonight variant 1)"
	case version <= 9:
		return "CNv2 (Cryptonight variant 2)"
	case version <= 11:
		return "CNv4 (Cryptonight variant 4)"
	}
	return "RandomX"
}
