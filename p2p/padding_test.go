package p2p

import (
	"bytes"
	"testing"

	"github.com/gonero/gonero/portable"
)

// --pad-transactions: make_tx_message's padding brings the body to a
// multiple of 1024 bytes when its estimate overshoots (the trim takes the
// excess off "_"); when it undershoots by more than the padding (it
// counts neither dandelionpp_fluff nor the storage's entry overhead
// exactly), monerod drops the padding, and so does gonero; a trim that
// shortens the padding's length varint leaves the body a byte short. The
// transactions decode unchanged; without the flag nothing is added.
func TestPadTransactions(t *testing.T) {
	n := &Node{cfg: Config{PadTransactions: true}}
	padded := 0
	for _, sizes := range [][]int{{1}, {100}, {1500}, {1500, 2700}, {1021}, {1000, 1000, 1000, 1000}, {70000}} {
		msg := portable.NewTransactions{Stem: true}
		for i, s := range sizes {
			msg.Txs = append(msg.Txs, bytes.Repeat([]byte{byte(i + 1)}, s))
		}
		n.padTxs(&msg)
		body, err := portable.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		// One byte short when the trim shortened the length's varint
		// ("we might lose byte in size encoding, we don't care").
		if r := len(body) % padGranularity; r != 0 && r != padGranularity-1 && len(msg.Padding) != 0 {
			t.Errorf("txs %v: padded body of %d bytes (%d over a multiple of %d)", sizes, len(body), len(body)%padGranularity, padGranularity)
		}
		if len(msg.Padding) != 0 {
			padded++
		}
		var back portable.NewTransactions
		if err := portable.Unmarshal(body, &back); err != nil || len(back.Txs) != len(sizes) || !back.Stem {
			t.Fatalf("txs %v: %v", sizes, err)
		}
		for i := range sizes {
			if !bytes.Equal(back.Txs[i], msg.Txs[i]) {
				t.Fatalf("txs %v: tx %d changed", sizes, i)
			}
		}
	}
	if padded < 5 {
		t.Fatalf("only %d of 7 messages padded", padded)
	}
	plain := portable.NewTransactions{Txs: [][]byte{{1, 2, 3}}}
	(&Node{}).padTxs(&plain)
	if len(plain.Padding) != 0 {
		t.Fatalf("padding without the flag: %d bytes", len(plain.Padding))
	}
}
