package rpctypes

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/portable"
)

// Fuzz targets for every wallet-sync request parser. Each is seeded with
// real requests (what wallets send, and the shapes the cross-check test
// sends); the parsers must never panic, and what they accept must be
// consistent with the blob (a request that loads re-encodes and loads to the
// same values).

func wsSeedBodies(f *testing.F) {
	genesis := cryptonote.Hash{0x41, 0x80}
	var s portable.Section
	s.Set("block_ids", portable.NewBlob(append(genesis[:], genesis[:]...)))
	s.Set("client", portable.NewString("00ff"))
	s.Set("prune", portable.NewBool(true))
	s.Set("start_height", portable.NewUint64(7))
	s.Set("no_miner_tx", portable.NewBool(true))
	s.Set("heights", portable.Value{Type: portable.ArrayFlag | portable.TypeUint64, Array: []portable.Value{portable.NewUint64(1), portable.NewUint64(2)}})
	s.Set("txid", portable.NewBlob(genesis[:]))
	s.Set("amounts", portable.Value{Type: portable.ArrayFlag | portable.TypeUint64, Array: []portable.Value{portable.NewUint64(0)}})
	s.Set("compress", portable.NewBool(true))
	s.Set("cumulative", portable.NewBool(false))
	s.Set("from_height", portable.NewUint32(3))
	var out portable.Section
	out.Set("amount", portable.NewUint64(0))
	out.Set("index", portable.NewUint8(9))
	s.Set("outputs", portable.NewObjectArray([]portable.Section{out, out}))
	s.Set("get_txid", portable.NewBool(false))
	b, err := portable.Encode(s)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte{})
	f.Add([]byte("\x01\x11\x01\x01\x01\x01\x02\x01\x01\x00"))
	// A real wallet /getblocks.bin body (1-restore-refresh): client, block_ids, prune, start_height.
	f.Add([]byte("\x01\x11\x01\x01\x01\x01\x02\x01\x01\x10\x09block_ids\x0a\x80\x41\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05prune\x0b\x01\x0cstart_height\x05\x00\x00\x00\x00\x00\x00\x00\x00\x06client\x0a\x00"))
}

func FuzzWalletSyncBinRequests(f *testing.F) {
	wsSeedBodies(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		if r, err := ParseGetBlocksRequest(body); err == nil {
			if len(r.BlockIDs) > len(body)/32 {
				t.Fatalf("%d block ids from %d bytes", len(r.BlockIDs), len(body))
			}
		}
		_, _ = ParseGetHashesRequest(body)
		if h, err := ParseHeightsRequest(body); err == nil && len(h) > len(body) {
			t.Fatalf("%d heights from %d bytes", len(h), len(body))
		}
		_, _ = ParseOIndexesRequest(body)
		if r, err := ParseGetOutsBinRequest(body); err == nil {
			if len(r.Outputs) > len(body) {
				t.Fatalf("%d outputs from %d bytes", len(r.Outputs), len(body))
			}
			// What loaded re-encodes and loads to the same request.
			var s portable.Section
			s.Set("get_txid", portable.NewBool(r.GetTxID))
			if len(r.Outputs) > 0 {
				s.Set("outputs", outsValue(r.Outputs))
			}
			again, err := portable.Encode(s)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := ParseGetOutsBinRequest(again)
			if err != nil || r2.GetTxID != r.GetTxID || len(r2.Outputs) != len(r.Outputs) {
				t.Fatalf("re-encoded request loads as %+v, %v; want %+v", r2, err, r)
			}
			for i := range r.Outputs {
				if r.Outputs[i] != r2.Outputs[i] {
					t.Fatalf("output %d: %+v then %+v", i, r.Outputs[i], r2.Outputs[i])
				}
			}
		}
		_, _ = ParseDistributionBinRequest(body)
	})
}

func FuzzWalletSyncJSONRequests(f *testing.F) {
	for _, s := range []string{
		`{"outputs":[{"amount":0,"index":1},{"amount":0,"index":2}],"get_txid":true}`,
		`{"outputs":[1,2]}`, ``, `{"outputs":`, `{"get_txid":1}`,
		`{"amounts":[0],"from_height":5,"to_height":9,"cumulative":true,"binary":false,"compress":true}`,
		`{"amounts":[0,17592186044415],"min_count":1,"max_count":0,"unlocked":true,"recent_cutoff":1700000000}`,
		`{"amounts":"x"}`, `{"amounts":[-1]}`, `{"amounts":[true]}`, `{"min_count":"12"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = ParseGetOutsJSONRequest(body)
		v, err := epeejson.Parse(body)
		p := NewParams(v, err == nil)
		_, _ = ParseDistributionParams(p)
		_, _ = ParseHistogramParams(p)
	})
}

// The streaming writer produces what Encode produces for the same content.
func TestPortableWriterMatchesEncode(t *testing.T) {
	d := &Distribution{Amount: 0, StartHeight: 3, Base: 7, Data: []uint64{0, 1, 300, 1 << 40}, Binary: true, Compress: true}
	outs := []OutKey{{Key: cryptonote.Key{1}, Mask: cryptonote.Key{2}, Unlocked: true, Height: 9, TxID: cryptonote.Hash{3}}}
	got := OutsBin(outs, "OK")

	var o portable.Section
	o.Set("height", portable.NewUint64(9))
	o.Set("key", portable.NewBlob(outs[0].Key[:]))
	o.Set("mask", portable.NewBlob(outs[0].Mask[:]))
	o.Set("txid", portable.NewBlob(outs[0].TxID[:]))
	o.Set("unlocked", portable.NewBool(true))
	var s portable.Section
	s.Set("credits", portable.NewUint64(0))
	s.Set("outs", portable.NewObjectArray([]portable.Section{o}))
	s.Set("status", portable.NewString("OK"))
	s.Set("top_hash", portable.NewString(""))
	s.Set("untrusted", portable.NewBool(false))
	want, err := portable.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("get_outs answer:\n got %x\nwant %x", got, want)
	}

	w := portable.NewWriter(nil)
	w.Header()
	w.Section(1)
	w.Array("distributions", portable.TypeObject, 1)
	d.WriteBin(w)
	var ds portable.Section
	ds.Set("amount", portable.NewUint64(0))
	ds.Set("base", portable.NewUint64(7))
	ds.Set("binary", portable.NewBool(true))
	ds.Set("compress", portable.NewBool(true))
	ds.Set("compressed_data", portable.NewBlob(cryptonote.AppendVarint([]byte{0, 1, 0xac, 0x02}, 1<<40)))
	ds.Set("start_height", portable.NewUint64(3))
	var root portable.Section
	root.Set("distributions", portable.NewObjectArray([]portable.Section{ds}))
	want, _ = portable.Encode(root)
	if !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("distribution:\n got %x\nwant %x", w.Bytes(), want)
	}
	// Size markers of every width.
	for _, n := range []uint64{0, 63, 64, 16383, 16384, 1<<30 - 1, 1 << 30} {
		b := portable.AppendVarint(nil, n)
		if len(b) != portable.VarintLen(n) {
			t.Fatalf("varint %d: %d bytes, VarintLen says %d", n, len(b), portable.VarintLen(n))
		}
	}
}

// FuzzGetOutsBinWallet: whatever body the wallet-layout reader of
// /get_outs.bin accepts, the general decoder accepts too, with the same
// request.
func FuzzGetOutsBinWallet(f *testing.F) {
	wsSeedBodies(f)
	outs := make([]portable.Section, 3)
	for i := range outs {
		outs[i].Set("amount", portable.NewUint64(uint64(i)*1000))
		outs[i].Set("index", portable.NewUint64(uint64(i)*7+1))
	}
	for _, txid := range []bool{false, true} {
		var s portable.Section
		s.Set("client", portable.NewString(""))
		s.Set("get_txid", portable.NewBool(txid))
		s.Set("outputs", portable.NewObjectArray(outs))
		b, err := portable.Encode(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(append(b, 0))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, ok := parseGetOutsBinWallet(body)
		if !ok {
			return
		}
		general, err := parseGetOutsBinGeneral(body)
		if err != nil {
			t.Fatalf("the wallet-layout reader accepted a body the decoder refuses: %v", err)
		}
		if fast.GetTxID != general.GetTxID || len(fast.Outputs) != len(general.Outputs) {
			t.Fatalf("wallet-layout reader %+v, decoder %+v", fast, general)
		}
		for i := range fast.Outputs {
			if fast.Outputs[i] != general.Outputs[i] {
				t.Fatalf("output %d: wallet-layout reader %+v, decoder %+v", i, fast.Outputs[i], general.Outputs[i])
			}
		}
	})
}

// TestGetOutsBinWalletLayout: every /get_outs.bin body monero-wallet-rpc
// sent in the captured sessions takes the wallet-layout reader, and reads
// as the general decoder reads it.
func TestGetOutsBinWalletLayout(t *testing.T) {
	dir := testutil.Path(t, "testdata", "regtest", "wallet")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures in %s (%v)", dir, err)
	}
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, ".wallet-calls.jsonl") {
			continue
		}
		for _, e := range readCapture(t, file) {
			if e.Path != "/get_outs.bin" {
				continue
			}
			body := e.request(t)
			fast, ok := parseGetOutsBinWallet(body)
			if !ok {
				t.Fatalf("%s seq %d: a wallet's body does not take the wallet-layout reader", filepath.Base(file), e.Seq)
			}
			general, err := parseGetOutsBinGeneral(body)
			if err != nil || fast.GetTxID != general.GetTxID || len(fast.Outputs) != len(general.Outputs) || len(fast.Outputs) == 0 {
				t.Fatalf("%s seq %d: wallet-layout reader %d outputs, decoder %d (%v)", filepath.Base(file), e.Seq, len(fast.Outputs), len(general.Outputs), err)
			}
			for i := range fast.Outputs {
				if fast.Outputs[i] != general.Outputs[i] {
					t.Fatalf("%s seq %d: output %d differs", filepath.Base(file), e.Seq, i)
				}
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no /get_outs.bin request in the captures")
	}
	t.Logf("%d captured /get_outs.bin bodies", n)
}

// outsValue is get_outs' outputs as a storage value.
func outsValue(refs []OutputRef) portable.Value {
	secs := make([]portable.Section, len(refs))
	for i, r := range refs {
		secs[i].Set("amount", portable.NewUint64(r.Amount))
		secs[i].Set("index", portable.NewUint64(r.Index))
	}
	return portable.NewObjectArray(secs)
}

// capturedRequest is what this package reads of a line of a capture in
// testdata/regtest/wallet: a request monero-wallet-rpc sent to monerod.
type capturedRequest struct {
	Seq            int    `json:"seq"`
	Path           string `json:"path"`
	RequestBody    string `json:"request_body"`
	RequestBodyHex string `json:"request_body_hex"`
}

func (e *capturedRequest) request(t *testing.T) []byte {
	if e.RequestBodyHex != "" {
		b, err := hex.DecodeString(e.RequestBodyHex)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []byte(e.RequestBody)
}

func readCapture(t *testing.T, path string) []capturedRequest {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []capturedRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var e capturedRequest
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// get_output_distribution's JSON answer: the three forms of the data
// (numbers; raw little-endian bytes; compressed varints, both raw bytes in
// a JSON string, control characters unescaped as monerod's epee writes
// them), and no data member for an empty distribution.
func TestDistributionJSON(t *testing.T) {
	cases := []struct {
		d          Distribution
		name, data string // the data member and its string; "" for numbers
		numbers    []uint64
	}{
		{d: Distribution{Base: 7, Data: []uint64{0, 1, 300}}, name: "distribution", numbers: []uint64{0, 1, 300}},
		{d: Distribution{Binary: true, Data: []uint64{0x41}}, name: "distribution", data: "A\x00\x00\x00\x00\x00\x00\x00"},
		{d: Distribution{Binary: true, Compress: true, Data: []uint64{0x41, 300}}, name: "compressed_data", data: "A\xac\x02"},
		{d: Distribution{}},
	}
	for _, c := range cases {
		c.d.StartHeight = 3
		w := epeejson.NewWriter(nil)
		res := GetOutputDistributionResponse{Distributions: []*Distribution{&c.d}}
		res.Write(w)
		v, err := epeejson.Parse(w.Bytes())
		if err != nil {
			t.Fatalf("%+v: %v\n%q", c.d, err, w.Bytes())
		}
		ds, ok := v.Get("distributions")
		if !ok || len(ds.Arr) != 1 {
			t.Fatalf("%+v: no distribution in %q", c.d, w.Bytes())
		}
		d := ds.Arr[0]
		if h, _ := d.Get("start_height"); h.Uint != 3 {
			t.Errorf("%+v: start_height %+v", c.d, h)
		}
		for _, name := range []string{"distribution", "compressed_data"} {
			got, present := d.Get(name)
			switch {
			case name != c.name:
				if present {
					t.Errorf("%+v: %s present", c.d, name)
				}
			case c.numbers != nil:
				if len(got.Arr) != len(c.numbers) {
					t.Fatalf("%+v: %s %+v", c.d, name, got)
				}
				for i, n := range c.numbers {
					if x, err := got.Arr[i].AsUint64(); err != nil || x != n {
						t.Errorf("%+v: %s[%d] = %d, %v", c.d, name, i, x, err)
					}
				}
			default:
				if s, err := got.AsString(); err != nil || s != c.data {
					t.Errorf("%+v: %s = %q, %v; want %q", c.d, name, s, err, c.data)
				}
			}
		}
	}
}
