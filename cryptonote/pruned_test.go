package cryptonote

import "testing"

// A real transaction's pruned part (SplitBlob) parses as a pruned
// transaction, re-serializes to itself, and with the hash of the dropped
// part gives back the transaction's id; the full blob is refused (trailing
// bytes) for every non-coinbase v2 transaction.
func TestParsePrunedRealTxs(t *testing.T) {
	_, txs := realBlobs(t)
	v2 := 0
	for _, b := range txs {
		tx, err := ParseTransaction(b)
		if err != nil {
			t.Fatal(err)
		}
		blob, n := tx.SplitBlob()
		p, err := ParsePrunedTransaction(blob[:n])
		if err != nil {
			t.Fatalf("pruned part of %s: %v", tx.ID(), err)
		}
		if string(p.Serialize()) != string(blob[:n]) {
			t.Fatalf("pruned %s re-serializes differently", tx.ID())
		}
		if tx.Version < 2 || n == len(blob) {
			continue
		}
		v2++
		if got := PrunedTxID(p, Keccak256(blob[n:])); got != tx.ID() {
			t.Fatalf("id from pruned parts %s, want %s", got, tx.ID())
		}
		if _, err := ParsePrunedTransaction(blob); err == nil {
			t.Fatalf("full blob of %s parsed as pruned", tx.ID())
		}
	}
	if v2 == 0 {
		t.Fatal("no v2 transaction among the vectors")
	}
}

// Whatever the input, pruned parsing never panics; anything accepted
// re-serializes to exactly the input.
func FuzzParsePrunedTransaction(f *testing.F) {
	_, txs := realBlobs(f)
	for _, b := range txs {
		tx, err := ParseTransaction(b)
		if err != nil {
			continue
		}
		blob, n := tx.SplitBlob()
		f.Add(blob[:n])
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := ParsePrunedTransaction(b)
		if err != nil {
			return
		}
		if got := tx.Serialize(); string(got) != string(b) {
			t.Fatalf("accepted pruned tx re-serializes differently")
		}
		_ = PrunedTxID(tx, Hash{})
		_ = tx.MonerodPrunedJSON()
	})
}
