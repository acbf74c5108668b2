package rpc

import (
	"encoding/hex"

	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/peerinfo"
	"github.com/gonero/gonero/rpctypes"
)

// call is one method invocation.
type call struct {
	server     *Server
	restricted bool
	params     requestParams
	// mem claims the answer's bytes from the memory budget as a handler
	// gathers them (answerbudget.go); its req is nil without a request.
	mem *answerClaim
}

// A handler reads what it needs and returns a function that writes the
// result object, or an error; nothing is written before the outcome is known.
type handler func(c *call) (func(w *epeejson.Writer), *Error)

// methodsEndpoints are the block, header and node-state methods (endpoints.go).
func methodsEndpoints() []endpoint {
	return []endpoint{
		// Capped: private facts hidden (info.go).
		{names: []string{"get_info"}, access: accessCapped, method: getInfo},
		// The header methods ignore fill_pow_hash on a restricted listener;
		// get_block_header_by_hash takes at most maxRestrictedHeaders hashes.
		{names: []string{"get_last_block_header", "getlastblockheader"}, access: accessCapped, method: getLastBlockHeader},
		{names: []string{"get_block_header_by_hash", "getblockheaderbyhash"}, access: accessCapped, method: getBlockHeaderByHash, deepParams: true},
		{names: []string{"get_block_header_by_height", "getblockheaderbyheight"}, access: accessCapped, method: getBlockHeaderByHeight},
		{names: []string{"get_block", "getblock"}, access: accessCapped, method: getBlock},
		{names: []string{"get_connections"}, access: accessRefused, method: getConnections, noClient: true},
		{names: []string{"get_block_count", "getblockcount"}, access: accessPublic, method: getBlockCount, noClient: true, deepParams: true},
		{names: []string{"generateblocks"}, access: accessRefused, method: generateBlocks},
	}
}

// blockAt is a block as the header methods see it: its stored metadata
// (main-chain figures for an alternative block) and whether it is an
// alternative ("orphan") block.
type blockAt struct {
	meta   chaindb.BlockMeta
	blob   []byte
	orphan bool
}

// view runs fn on a consistent snapshot of the chain and returns its
// height (number of blocks).
func (c *call) view(fn func(r *chaindb.Reader, height uint64) *Error) *Error {
	var rpcErr *Error
	err := c.server.store.View(func(r *chaindb.Reader) error {
		h, err := r.Height()
		if err != nil {
			return err
		}
		rpcErr = fn(r, h)
		return nil
	})
	if err != nil {
		c.server.log.Error("chain read failed", "err", err)
		return errInternal("can't produce valid response.")
	}
	return rpcErr
}

// byHash finds a block on the main chain, then among the alternative
// blocks; the error texts are monerod's (hash as the client wrote it).
func byHash(r *chaindb.Reader, hashText string, withBlob bool) (blockAt, *Error) {
	h, err := cryptonote.ParseHash(hashText)
	if err != nil {
		return blockAt{}, errBadHash(hashText)
	}
	if height, err := r.HeightByHash(h); err == nil {
		return byHeight(r, height, withBlob)
	}
	alt, err := r.AltBlock(h)
	if err != nil {
		return blockAt{}, errUnknownHash(hashText)
	}
	// monerod reports an alternative block's difficulty and weights from the
	// main-chain block at the same height (fill_block_header_response).
	main, err := r.MetaByHeight(alt.Meta.Height)
	if err != nil {
		return blockAt{}, &Error{Code: 0, Message: ""}
	}
	m := alt.Meta
	m.Difficulty, m.CumulativeDifficulty = main.Difficulty, main.CumulativeDifficulty
	m.Weight, m.LongTermWeight = main.Weight, main.LongTermWeight
	return blockAt{meta: m, blob: alt.Blob, orphan: true}, nil
}

func byHeight(r *chaindb.Reader, height uint64, withBlob bool) (blockAt, *Error) {
	m, err := r.MetaByHeight(height)
	if err != nil {
		return blockAt{}, errInternal("can't get block by height. Height = " + uitoa(height) + ".")
	}
	b := blockAt{meta: m}
	if withBlob {
		if b.blob, err = r.BlockBlob(height); err != nil {
			return blockAt{}, errInternal("can't get block by height. Height = " + uitoa(height) + ".")
		}
	}
	return b, nil
}

// powJob is what computing a block's proof-of-work hash needs, gathered
// inside a store snapshot; the hash itself (RandomX, ~20 ms) is computed
// after the snapshot is released, so that no read transaction stays open
// for the length of many hashes.
type powJob struct {
	id          cryptonote.Hash
	height      uint64
	major       uint8
	seed        cryptonote.Hash // id of the main-chain block at the seed height
	hashingBlob []byte
}

// powInput gathers a powJob for fill_pow_hash; nil when not asked or on a
// restricted listener, which ignores the flag.
func (c *call) powInput(r *chaindb.Reader, b *blockAt, want bool) (*powJob, *Error) {
	if !want || c.restricted {
		return nil, nil
	}
	blob := b.blob
	if blob == nil {
		var err error
		if blob, err = r.BlockBlob(b.meta.Height); err != nil {
			return nil, errInternal("can't produce valid response.")
		}
	}
	blk, err := cryptonote.ParseBlock(blob)
	if err != nil {
		return nil, errInternal("can't produce valid response.")
	}
	seed, err := r.MetaByHeight(consensus.SeedHeight(b.meta.Height))
	if err != nil {
		return nil, errInternal("can't produce valid response.")
	}
	return &powJob{id: b.meta.Hash, height: b.meta.Height, major: blk.MajorVersion, seed: seed.Hash, hashingBlob: blk.HashingBlob()}, nil
}

// fillPoW computes the pending proof-of-work hash of a header, if any.
func (c *call) fillPoW(h *headerFields) *Error {
	if h.pow == nil {
		return nil
	}
	hash, err := c.server.blockPoWHash(h.pow)
	if err != nil {
		c.server.log.Error("pow hash", "block", h.pow.id, "err", err)
		return errInternal("can't produce valid response.")
	}
	h.powHash = hex.EncodeToString(hash[:])
	return nil
}

// headerFields is a block_header object's content.
type headerFields struct {
	block    blockAt
	depth    uint64
	powHash  string
	zeroMeta bool    // the all-default header (BUSY, by-hash without a hash)
	pow      *powJob // a proof-of-work hash still to compute into powHash
}

func newHeader(b blockAt, chainHeight uint64, pow *powJob) headerFields {
	return headerFields{block: b, depth: chainHeight - b.meta.Height - 1, pow: pow}
}

// header is the block_header object of h.
func (h *headerFields) header() rpctypes.BlockHeader {
	m := &h.block.meta
	out := rpctypes.BlockHeader{BlockSize: m.Weight, BlockWeight: m.Weight,
		CumulativeDifficulty: m.CumulativeDifficulty.Lo, CumulativeDifficultyTop64: m.CumulativeDifficulty.Hi,
		Depth: h.depth, Difficulty: m.Difficulty.Lo, DifficultyTop64: m.Difficulty.Hi, Height: m.Height,
		LongTermWeight: m.LongTermWeight, MajorVersion: m.MajorVersion, MinorVersion: m.MinorVersion, Nonce: m.Nonce,
		NumTxes: m.NumTxes, OrphanStatus: h.block.orphan, PowHash: h.powHash, Reward: m.Reward, Timestamp: m.Timestamp}
	if !h.zeroMeta {
		out.Hash, out.MinerTxHash, out.PrevHash = m.Hash.String(), m.MinerTxHash.String(), m.PrevHash.String()
		out.WideCumulativeDifficulty, out.WideDifficulty = m.CumulativeDifficulty.Hex(), m.Difficulty.Hex()
	}
	return out
}

// The members of rpc_access_response_base, written as rpctypes writes
// them (credits, status and top_hash, untrusted).
func writeCredits(w *epeejson.Writer)                   { rpctypes.WriteCredits(w) }
func writeStatusTail(w *epeejson.Writer, status string) { rpctypes.WriteStatusTail(w, status) }
func writeUntrusted(w *epeejson.Writer)                 { rpctypes.WriteUntrusted(w) }

// headerByHeight reads the header of the main-chain block at the height pick
// chooses for the current chain height, with its PoW hash if asked for.
// readErr, if not nil, replaces the error for a block that cannot be read.
func (c *call) headerByHeight(pick func(chainHeight uint64) (uint64, *Error), fill bool, readErr *Error) (headerFields, *Error) {
	var hdr headerFields
	if e := c.view(func(r *chaindb.Reader, chainHeight uint64) *Error {
		height, e := pick(chainHeight)
		if e != nil {
			return e
		}
		b, e := byHeight(r, height, fill && !c.restricted)
		if e != nil {
			if readErr != nil {
				return readErr
			}
			return e
		}
		pow, e := c.powInput(r, &b, fill)
		if e != nil {
			return e
		}
		hdr = newHeader(b, chainHeight, pow)
		return nil
	}); e != nil {
		return hdr, e
	}
	return hdr, c.fillPoW(&hdr)
}

// headerResult writes the result of the header methods: block_header, the
// block_headers list if any (by-hash only), and the common members.
func headerResult(hdr headerFields, list []headerFields, status string) func(*epeejson.Writer) {
	res := &rpctypes.BlockHeaderResponse{BlockHeader: hdr.header(), Status: status}
	if len(list) > 0 {
		res.BlockHeaders = make([]rpctypes.BlockHeader, len(list))
		for i := range list {
			res.BlockHeaders[i] = list[i].header()
		}
	}
	return res.Write
}

func getLastBlockHeader(c *call) (func(*epeejson.Writer), *Error) {
	fill, e := c.params.Bool("fill_pow_hash")
	if e != nil {
		return nil, e
	}
	if !c.server.peers.Synchronized() {
		// monerod answers BUSY with an all-default header until synchronized.
		return headerResult(headerFields{zeroMeta: true}, nil, "BUSY"), nil
	}
	top := func(chainHeight uint64) (uint64, *Error) { return chainHeight - 1, nil }
	hdr, e := c.headerByHeight(top, fill, errInternal("can't get last block."))
	if e != nil {
		return nil, e
	}
	return headerResult(hdr, nil, "OK"), nil
}

func getBlockHeaderByHeight(c *call) (func(*epeejson.Writer), *Error) {
	height, e := c.params.Uint64("height")
	if e != nil {
		return nil, e
	}
	fill, e := c.params.Bool("fill_pow_hash")
	if e != nil {
		return nil, e
	}
	requested := func(chainHeight uint64) (uint64, *Error) {
		if height >= chainHeight {
			return 0, errTooBigHeight(height, chainHeight-1)
		}
		return height, nil
	}
	hdr, e := c.headerByHeight(requested, fill, nil)
	if e != nil {
		return nil, e
	}
	return headerResult(hdr, nil, "OK"), nil
}

// maxRestrictedHeaders is monerod's RESTRICTED_BLOCK_HEADER_RANGE.
const maxRestrictedHeaders = 1000

func getBlockHeaderByHash(c *call) (func(*epeejson.Writer), *Error) {
	hash, e := c.params.String("hash")
	if e != nil {
		return nil, e
	}
	hashes, e := c.params.Strings("hashes")
	if e != nil {
		return nil, e
	}
	fill, e := c.params.Bool("fill_pow_hash")
	if e != nil {
		return nil, e
	}
	if c.restricted && len(hashes) > maxRestrictedHeaders {
		return nil, errTooManyHeaders
	}
	// The answer grows with the hashes asked (about 15 times their text).
	if !c.claimItems(uint64(len(hashes))+1, headerAnswerBytes) {
		return nil, errCoreBusy
	}
	hdr := headerFields{zeroMeta: true}
	var list []headerFields
	if e := c.view(func(r *chaindb.Reader, chainHeight uint64) *Error {
		lookup := func(text string) (headerFields, *Error) {
			b, e := byHash(r, text, fill && !c.restricted)
			if e != nil {
				return headerFields{}, e
			}
			pow, e := c.powInput(r, &b, fill)
			if e != nil {
				return headerFields{}, e
			}
			return newHeader(b, chainHeight, pow), nil
		}
		if hash != "" {
			var e *Error
			if hdr, e = lookup(hash); e != nil {
				return e
			}
		}
		for _, x := range hashes {
			h, e := lookup(x)
			if e != nil {
				return e
			}
			list = append(list, h)
		}
		return nil
	}); e != nil {
		return nil, e
	}
	if e := c.fillPoW(&hdr); e != nil {
		return nil, e
	}
	for i := range list {
		if e := c.fillPoW(&list[i]); e != nil {
			return nil, e
		}
	}
	return headerResult(hdr, list, "OK"), nil
}

func getBlock(c *call) (func(*epeejson.Writer), *Error) {
	hash, e := c.params.String("hash")
	if e != nil {
		return nil, e
	}
	height, e := c.params.Uint64("height")
	if e != nil {
		return nil, e
	}
	fill, e := c.params.Bool("fill_pow_hash")
	if e != nil {
		return nil, e
	}
	var hdr headerFields
	var rendered *renderedBlock
	if e := c.view(func(r *chaindb.Reader, chainHeight uint64) *Error {
		var b blockAt
		var e *Error
		// The block's metadata first, its blob (an alternative block's
		// comes with it) once the answer is claimed.
		if hash != "" { // a non-empty hash wins; the height is then not even checked
			b, e = byHash(r, hash, false)
		} else if height >= chainHeight {
			return errTooBigHeight(height, chainHeight-1)
		} else if b, e = byHeight(r, height, false); e != nil {
			return errUnknownHash(hash) // monerod looks up by the hash it found for the height: "Hash = ."
		}
		if e != nil {
			return e
		}
		// The answer grows with the block (its blob in hex, its JSON text
		// with the miner transaction's extra byte by byte, the ids twice):
		// claimed from the stored size before the blob is read or rendered.
		size := b.meta.BlobSize
		if b.blob != nil {
			size = uint64(len(b.blob))
		}
		if !c.claimItems(size, blockAnswerBytesPerByte) || !c.claimItems(1, blockAnswerFixedBytes) {
			return errCoreBusy
		}
		if b.blob == nil {
			blob, err := r.BlockBlob(b.meta.Height)
			if err != nil {
				if hash != "" {
					return errInternal("can't get block by height. Height = " + uitoa(b.meta.Height) + ".")
				}
				return errUnknownHash(hash)
			}
			b.blob = blob
		}
		if rendered, e = c.server.renderBlock(&b); e != nil {
			return e
		}
		pow, e := c.powInput(r, &b, fill)
		if e != nil {
			return e
		}
		hdr = newHeader(b, chainHeight, pow)
		return nil
	}); e != nil {
		return nil, e
	}
	if e := c.fillPoW(&hdr); e != nil {
		return nil, e
	}
	res := &rpctypes.GetBlockResponse{Blob: rendered.blobHex, BlockHeader: hdr.header(), JSON: rendered.json,
		MinerTxHash: hdr.block.meta.MinerTxHash.String(), TxHashes: rendered.txHashes}
	return res.Write, nil
}

// getBlockCount is not one of the six query methods, but pools and wallets
// poll it constantly and it is one line.
func getBlockCount(c *call) (func(*epeejson.Writer), *Error) {
	// Its request is a std::list<std::string>: params given as an array
	// must hold strings only (unused), anything else is ignored.
	if _, e := c.params.BareStrings(); e != nil {
		return nil, e
	}
	res := &rpctypes.GetBlockCountResponse{Count: c.server.chain.Height()}
	return res.Write, nil
}

func getConnections(c *call) (func(*epeejson.Writer), *Error) {
	res := &rpctypes.GetConnectionsResponse{Connections: connectionInfos(c.server.peers.Connections())}
	return res.Write, nil
}

// connectionInfos are the P2P layer's connections as the RPC shows them.
func connectionInfos(conns []peerinfo.Connection) []rpctypes.ConnectionInfo {
	if len(conns) == 0 {
		return nil
	}
	out := make([]rpctypes.ConnectionInfo, len(conns))
	for i := range conns {
		out[i] = rpctypes.ConnectionInfo(conns[i])
	}
	return out
}

func uitoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}
