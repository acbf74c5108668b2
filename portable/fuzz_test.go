package portable

import (
	"bytes"
	"reflect"
	"testing"
)

// seeds are the blobs every fuzz target starts from.
func seeds(f *testing.F) {
	f.Add(pingResponseBody(f))
	f.Add(handshakeExample(f))
	for _, p := range []interface{ ToSection() Section }{
		fullHandshakeResponse(4),
		TimedSyncResponse{PayloadData: fullHandshakeResponse(0).PayloadData, LocalPeerlist: fullHandshakeResponse(2).LocalPeerlist},
		SupportFlagsResponse{SupportFlags: 1},
		PingRequest{},
		NewBlock{Block: BlockCompleteEntry{Block: []byte{16, 16, 1}, Txs: []TxBlobEntry{{Blob: []byte{2, 1}}}}, CurrentBlockchainHeight: 7},
		ResponseGetObjects{Blocks: []BlockCompleteEntry{{Pruned: true, Block: []byte{1}, BlockWeight: 9,
			Txs: []TxBlobEntry{{Blob: []byte{2}, PrunableHash: [32]byte{1}}}}}, MissedIDs: [][32]byte{{3}}, CurrentBlockchainHeight: 2},
		ResponseChainEntry{StartHeight: 1, TotalHeight: 3, CumulativeDifficulty: 3, BlockIDs: [][32]byte{{1}, {2}},
			BlockWeights: []uint64{80, 90}, FirstBlock: []byte{1, 2}},
		RequestChain{BlockIDs: [][32]byte{{1}, {2}}, Prune: true},
		RequestFluffyMissingTx{BlockHash: [32]byte{5}, CurrentBlockchainHeight: 4, MissingTxIndices: []uint64{0, 2}},
		NewTransactions{Txs: [][]byte{{2, 0}}, Padding: []byte("  "), Stem: true},
	} {
		b, err := Marshal(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	all, err := Encode(allTypes())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(all)
}

// FuzzDecode: anything Decode accepts, Encode writes, and that decodes to
// an equal tree and re-encodes to the same bytes. When the input used
// minimal size markers and no bare ARRAY codes (the only encoding freedoms,
// both of which make the input longer), the encoding is the input itself.
func FuzzDecode(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			return
		}
		enc, err := Encode(s)
		if err != nil {
			t.Fatalf("decoded tree does not encode: %v", err)
		}
		back, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
		if !back.Equal(s) {
			t.Fatal("re-decoded tree differs")
		}
		again, err := Encode(back)
		if err != nil || !bytes.Equal(again, enc) {
			t.Fatalf("encoding not deterministic: %v", err)
		}
		// How many bytes did the root section take?
		d := decoder{data: data, off: len(storageHeader), lim: P2PLimits()}
		if _, err := d.section(0); err != nil {
			t.Fatal(err)
		}
		if d.off < len(enc) {
			t.Fatalf("encoding (%d bytes) longer than the input (%d)", len(enc), d.off)
		}
		if d.off == len(enc) && !bytes.Equal(data[:d.off], enc) {
			t.Fatalf("input not reproduced:\n% x\n% x", data[:d.off], enc)
		}
	})
}

// fuzzPayload checks a P2P payload decoder: whatever it loads, Marshal
// writes; that loads to an equal struct and re-marshals to the same bytes.
func fuzzPayload[T any, P interface {
	*T
	ToSection() Section
	FromSection(Section) error
}](f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m T
		if err := Unmarshal(data, P(&m)); err != nil {
			return
		}
		enc, err := Marshal(P(&m))
		if err != nil {
			t.Fatalf("loaded payload does not marshal: %v", err)
		}
		s, err := Decode(enc)
		if err != nil || !isCanonical(s) {
			t.Fatalf("marshalled payload not canonical: %v", err)
		}
		var back T
		if err := Unmarshal(enc, P(&back)); err != nil {
			t.Fatalf("marshalled payload does not load: %v", err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip differs:\n%+v\n%+v", back, m)
		}
		again, _ := Marshal(P(&back))
		if !bytes.Equal(again, enc) {
			t.Fatal("marshal not deterministic")
		}
	})
}

func FuzzHandshakeRequest(f *testing.F)     { fuzzPayload[HandshakeRequest](f) }
func FuzzHandshakeResponse(f *testing.F)    { fuzzPayload[HandshakeResponse](f) }
func FuzzTimedSyncRequest(f *testing.F)     { fuzzPayload[TimedSyncRequest](f) }
func FuzzTimedSyncResponse(f *testing.F)    { fuzzPayload[TimedSyncResponse](f) }
func FuzzPingResponse(f *testing.F)         { fuzzPayload[PingResponse](f) }
func FuzzSupportFlagsResponse(f *testing.F) { fuzzPayload[SupportFlagsResponse](f) }

func FuzzNewBlock(f *testing.F)               { fuzzPayload[NewBlock](f) }
func FuzzNewTransactions(f *testing.F)        { fuzzPayload[NewTransactions](f) }
func FuzzRequestGetObjects(f *testing.F)      { fuzzPayload[RequestGetObjects](f) }
func FuzzResponseGetObjects(f *testing.F)     { fuzzPayload[ResponseGetObjects](f) }
func FuzzRequestChain(f *testing.F)           { fuzzPayload[RequestChain](f) }
func FuzzResponseChainEntry(f *testing.F)     { fuzzPayload[ResponseChainEntry](f) }
func FuzzRequestFluffyMissingTx(f *testing.F) { fuzzPayload[RequestFluffyMissingTx](f) }
func FuzzGetTxpoolComplement(f *testing.F)    { fuzzPayload[GetTxpoolComplement](f) }
