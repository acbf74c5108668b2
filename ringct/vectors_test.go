package ringct

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

func loadJSON(t testing.TB, v any, elem ...string) {
	t.Helper()
	b, err := os.ReadFile(testutil.Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func unhex32(t testing.TB, s string) [32]byte {
	t.Helper()
	b := unhex(t, s)
	if len(b) != 32 {
		t.Fatalf("%q is not 32 bytes", s)
	}
	return [32]byte(b)
}

func parseTx(t testing.TB, blob []byte) *cryptonote.Transaction {
	t.Helper()
	tx, err := cryptonote.ParseTransaction(blob)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

type hexRing []struct {
	Key  string `json:"key"`
	Mask string `json:"mask"`
}

func (r hexRing) members(t testing.TB) []RingMember {
	out := make([]RingMember, len(r))
	for i, m := range r {
		out[i] = RingMember{Dest: unhex32(t, m.Key), Mask: unhex32(t, m.Mask)}
	}
	return out
}

// oxide's transactions.json: signature_hash of 3 RingCT txs (types 5, 5, 6)
// and a v1 tx (its prefix hash); the coinbase has none.
func TestMessageHashVectors(t *testing.T) {
	var txs []struct {
		ID            string `json:"id"`
		Hex           string `json:"hex"`
		SignatureHash string `json:"signature_hash"`
	}
	loadJSON(t, &txs, "testdata", "vectors", "monero-oxide", "transactions.json")
	checked := 0
	for _, v := range txs {
		if v.SignatureHash == "" {
			continue
		}
		tx := parseTx(t, unhex(t, v.Hex))
		want := unhex32(t, v.SignatureHash)
		if tx.Version == 1 {
			if got := tx.Hashes().PrefixHash; [32]byte(got) != want {
				t.Errorf("%s: prefix hash %x, want %x", v.ID, got, want)
			}
			if _, err := MessageHash(tx); err == nil {
				t.Errorf("%s: MessageHash accepted a v1 tx", v.ID)
			}
			checked++
			continue
		}
		got, err := MessageHash(tx)
		if err != nil {
			t.Fatalf("%s: %v", v.ID, err)
		}
		if got != want {
			t.Errorf("%s: message %x, want %x", v.ID, got, want)
		}
		checked++
	}
	if checked != 4 {
		t.Fatalf("checked %d signature_hash vectors, want 4", checked)
	}
}

func TestMessageHashRefusals(t *testing.T) {
	if _, err := MessageHash(nil); err == nil {
		t.Error("nil tx accepted")
	}
	var v struct{ Hex string }
	loadJSON(t, &v, "testdata", "vectors", "monero-oxide", "clsag_tx.json")
	tx := parseTx(t, unhex(t, v.Hex))
	pr := tx.Rct.Prunable
	tx.Rct.Prunable = nil
	if _, err := MessageHash(tx); err == nil {
		t.Error("pruned tx accepted")
	}
	tx.Rct.Prunable = pr
	in0 := tx.Inputs[0]
	tx.Inputs[0] = nil
	if _, err := MessageHash(tx); err == nil {
		t.Error("nil input accepted")
	}
	tx.Inputs[0] = in0
	tg := tx.Outputs[1].Target
	tx.Outputs[1].Target = nil
	if _, err := MessageHash(tx); err == nil {
		t.Error("nil output target accepted")
	}
	tx.Outputs[1].Target = tg
	if _, err := MessageHash(tx); err != nil {
		t.Error(err)
	}
	tx.Rct.OutPk = tx.Rct.OutPk[:1]
	if _, err := MessageHash(tx); err == nil {
		t.Error("outPk shorter than outputs accepted")
	}
	tx.Rct = nil
	if _, err := MessageHash(tx); err == nil {
		t.Error("v2 tx without RingCT accepted")
	}
}

// clsagVector is oxide's type-6 tx with its two rings of 16.
type clsagVector struct {
	tx    *cryptonote.Transaction
	msg   [32]byte
	rings [][]RingMember
}

func loadCLSAGVector(t testing.TB) clsagVector {
	var v struct{ Hex string }
	loadJSON(t, &v, "testdata", "vectors", "monero-oxide", "clsag_tx.json")
	var rings []hexRing
	loadJSON(t, &rings, "testdata", "vectors", "monero-oxide", "ring_data.json")
	tx := parseTx(t, unhex(t, v.Hex))
	msg, err := MessageHash(tx)
	if err != nil {
		t.Fatal(err)
	}
	cv := clsagVector{tx: tx, msg: msg}
	for _, r := range rings {
		cv.rings = append(cv.rings, r.members(t))
	}
	return cv
}

func TestCLSAGOxideVector(t *testing.T) {
	v := loadCLSAGVector(t)
	if got, want := v.tx.ID().String(), "efd109f6cec3530a98c5d87d5058ed87fd616d8afdcf6655a11ac8a6b56ab27e"; got != want {
		t.Fatalf("id %s, want %s", got, want)
	}
	if hex.EncodeToString(v.msg[:]) != "8311c33650ac49e94bb1227895f70e6e4424dedc9ac56c32a8d768955f96de8a" {
		t.Fatalf("message %x", v.msg)
	}
	if len(v.rings) != 2 || len(v.tx.Inputs) != 2 {
		t.Fatal("want 2 inputs and 2 rings")
	}
	for i, in := range v.tx.Inputs {
		ki := in.(cryptonote.TxInToKey).KeyImage
		if len(v.rings[i]) != 16 {
			t.Fatalf("ring %d has %d members", i, len(v.rings[i]))
		}
		err := VerifyCLSAG(v.msg, v.rings[i], v.tx.Rct.Prunable.PseudoOuts[i], ki, &v.tx.Rct.Prunable.CLSAGs[i])
		if err != nil {
			t.Errorf("input %d: %v", i, err)
		}
		// The other input's ring must not verify.
		if VerifyCLSAG(v.msg, v.rings[1-i], v.tx.Rct.Prunable.PseudoOuts[i], ki, &v.tx.Rct.Prunable.CLSAGs[i]) == nil {
			t.Errorf("input %d verified over the wrong ring", i)
		}
	}
	if !CheckBalance(v.tx.Rct.Prunable.PseudoOuts, v.tx.Rct.OutPk, v.tx.Rct.TxnFee) {
		t.Error("balance")
	}
}

type fullMLSAGVector struct {
	tx   *cryptonote.Transaction
	msg  [32]byte
	ring []RingMember
}

func loadFullMLSAGVector(t testing.TB) fullMLSAGVector {
	var v struct {
		ID, Hex, Message string
		Ring             []struct {
			GlobalIndex uint64 `json:"global_index"`
			Key, Mask   string
		}
	}
	loadJSON(t, &v, "testdata", "vectors", "monero-unit-tests", "full_mlsag_tx.json")
	tx := parseTx(t, unhex(t, v.Hex))
	if tx.ID().String() != v.ID {
		t.Fatalf("id %s, want %s", tx.ID(), v.ID)
	}
	fv := fullMLSAGVector{tx: tx, msg: unhex32(t, v.Message)}
	k := tx.Inputs[0].(cryptonote.TxInToKey)
	idx := uint64(0)
	for i, m := range v.Ring {
		idx += k.KeyOffsets[i]
		if idx != m.GlobalIndex {
			t.Fatalf("ring member %d: global index %d, key offsets give %d", i, m.GlobalIndex, idx)
		}
		fv.ring = append(fv.ring, RingMember{Dest: unhex32(t, m.Key), Mask: unhex32(t, m.Mask)})
	}
	return fv
}

func TestFullMLSAGVector(t *testing.T) {
	v := loadFullMLSAGVector(t)
	if v.tx.Rct.Type != cryptonote.RctTypeFull || len(v.ring) != 5 {
		t.Fatalf("type %d, ring %d", v.tx.Rct.Type, len(v.ring))
	}
	msg, err := MessageHash(v.tx)
	if err != nil {
		t.Fatal(err)
	}
	if msg != v.msg {
		t.Fatalf("message %x, want %x", msg, v.msg)
	}
	ki := [][32]byte{v.tx.Inputs[0].(cryptonote.TxInToKey).KeyImage}
	r := v.tx.Rct
	if err := VerifyMLSAGFull(msg, [][]RingMember{v.ring}, ki, r.OutPk, r.TxnFee, &r.Prunable.MGs[0]); err != nil {
		t.Fatal(err)
	}
	if VerifyMLSAGFull(msg, [][]RingMember{v.ring}, ki, r.OutPk, r.TxnFee+1, &r.Prunable.MGs[0]) == nil {
		t.Error("verified with a different fee")
	}
	if VerifyMLSAGFull(msg, [][]RingMember{v.ring}, ki, r.OutPk[:1], r.TxnFee, &r.Prunable.MGs[0]) == nil {
		t.Error("verified without an output")
	}
}
