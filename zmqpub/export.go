package zmqpub

import "github.com/gonero/gonero/cryptonote"

// AppendBlockJSON appends b as monerod's json_object.cpp writes a block
// (the full-chain topic's elements), for the ZMQ RPC server's answers,
// which share that JSON.
func AppendBlockJSON(dst []byte, b *cryptonote.Block) []byte {
	j := jsonBuf{b: dst}
	j.writeBlock(b)
	return j.b
}

// AppendTxJSON appends tx as json_object.cpp writes a transaction. pruned
// is monerod's transaction::pruned: no signatures, and no prunable part
// (which a transaction parsed pruned, Rct.Prunable nil, lacks anyway).
func AppendTxJSON(dst []byte, tx *cryptonote.Transaction, pruned bool) []byte {
	j := jsonBuf{b: dst}
	j.writeTxAs(tx, pruned)
	return j.b
}
