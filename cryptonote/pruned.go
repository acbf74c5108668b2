package cryptonote

// ParsePrunedTransaction decodes the blob of a pruned transaction (monerod's
// parse_and_validate_tx_base_from_blob): the prefix, and for version 2 the
// RingCT base; Rct.Prunable stays nil. Trailing bytes are an error, so a
// full blob does not parse as a pruned one.
func ParsePrunedTransaction(b []byte) (*Transaction, error) {
	d := NewDecoder(b)
	d.pruned = true
	tx, err := d.Transaction()
	if err != nil {
		return nil, err
	}
	return tx, d.end("pruned transaction")
}

// PrunedTxID is get_pruned_transaction_hash: the id of a version-2
// transaction from its pruned form and the hash of the prunable part it
// lacks. Version-1 ids cover the whole blob and cannot be rebuilt this way.
func PrunedTxID(tx *Transaction, prunableHash Hash) Hash {
	blob, parts := tx.appendParts(nil)
	prefix := Keccak256(blob[:parts.prefixEnd])
	base := Keccak256(blob[parts.prefixEnd:parts.baseEnd])
	return Keccak256(prefix[:], base[:], prunableHash[:])
}
