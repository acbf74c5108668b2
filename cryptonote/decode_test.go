package cryptonote

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

func TestVarintEncodings(t *testing.T) {
	cases := []struct {
		v   uint64
		hex string
	}{
		{0, "00"}, {127, "7f"}, {128, "8001"}, {300, "ac02"}, {10000, "904e"},
		{2751506, "92f8a701"}, {17592186044415, "ffffffffffff03"}, {^uint64(0), "ffffffffffffffffff01"},
	}
	for _, c := range cases {
		enc := AppendVarint(nil, c.v)
		if hex.EncodeToString(enc) != c.hex || VarintLen(c.v) != len(enc) {
			t.Errorf("AppendVarint(%d) = %x, want %s", c.v, enc, c.hex)
		}
		v, n, err := decodeVarint(enc, 64)
		if err != nil || v != c.v || n != len(enc) {
			t.Errorf("decode %s = %d, %d, %v", c.hex, v, n, err)
		}
	}
	bad := []struct {
		hex   string
		width uint
		want  error
	}{
		{"8000", 64, ErrNonCanonicalVarint},
		{"ff00", 64, ErrNonCanonicalVarint},
		{"ffffffffffffffffff02", 64, ErrVarintOverflow}, // 10th byte must be < 2
		{"ffffffffffffffffff81", 64, ErrVarintOverflow}, // continuation on the last possible byte
		{"8002", 8, ErrVarintOverflow},                  // 256 in a u8 field
		{"ffffffff10", 32, ErrVarintOverflow},           // 5th byte of a u32 must be < 16
		{"80", 64, ErrTruncated},
		{"", 64, ErrTruncated},
	}
	for _, c := range bad {
		b, _ := hex.DecodeString(c.hex)
		if _, _, err := decodeVarint(b, c.width); !errors.Is(err, c.want) {
			t.Errorf("decode %q (W=%d): %v, want %v", c.hex, c.width, err, c.want)
		}
	}
	if v, _, err := decodeVarint([]byte{0x81, 0x01}, 8); err != nil || v != 129 {
		t.Errorf("129 in a u8 field: %d %v", v, err)
	}
}

// realBlobs returns every real block and transaction blob in the test data.
func realBlobs(t testing.TB) (blocks, txs [][]byte) {
	for _, pat := range []string{"block", "tx"} {
		files, _ := filepath.Glob(testutil.Path(t, "testdata", "mainnet", pat, "*.bin"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if pat == "block" {
				blocks = append(blocks, b)
			} else {
				txs = append(txs, b)
			}
		}
	}
	return blocks, txs
}

// Every strict prefix of a real blob, and the blob with a byte appended,
// fails with a DecodeError — never a panic and never success.
func TestTruncatedAndTrailingInputs(t *testing.T) {
	blocks, txs := realBlobs(t)
	check := func(kind string, blob []byte, parse func([]byte) error) {
		for cut := 0; cut < len(blob); cut++ {
			err := parse(blob[:cut])
			var de *DecodeError
			if err == nil || !errors.As(err, &de) {
				t.Fatalf("%s cut at %d/%d: want DecodeError, got %v", kind, cut, len(blob), err)
			}
		}
		if err := parse(append(append([]byte(nil), blob...), 0)); !errors.Is(err, ErrTrailingBytes) {
			t.Fatalf("%s with a trailing byte: %v", kind, err)
		}
	}
	for _, b := range blocks {
		if len(b) > 4000 {
			continue // the 16 KB block 202612 is covered by the fuzz seeds; keep this test quick
		}
		check("block", b, func(p []byte) error { _, err := ParseBlock(p); return err })
	}
	for _, b := range txs {
		check("tx", b, func(p []byte) error { _, err := ParseTransaction(p); return err })
	}
}

// Length fields larger than the data are refused before anything is allocated.
func TestHugeCountsDoNotAllocate(t *testing.T) {
	huge := AppendVarint(nil, 1<<40)
	cases := map[string][]byte{
		"vin":       append([]byte{0x02, 0x00}, huge...),
		"vout":      append([]byte{0x02, 0x00, 0x00}, huge...),
		"extra":     append([]byte{0x02, 0x00, 0x00, 0x00}, huge...),
		"offsets":   append([]byte{0x01, 0x00, 0x01, 0x02, 0x00}, huge...),
		"tx_hashes": nil,
	}
	// A genesis-like block whose tx-hash count claims 2^40 entries.
	g, _ := hex.DecodeString("010000000000000000000000000000000000000000000000000000000000000000000010270000013c01ff0001ffffffffffff03029b2e4c0281c0b02e7c53291a94d1d0cbff8883f8024f5142ee494ffbbd08807121017767aafcde9be00dcfd098715ebcf7f410daebc582fda69d24a28e9d0bc890d1")
	cases["tx_hashes"] = append(g, huge...)
	for name, b := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var err error
		if name == "tx_hashes" {
			_, err = ParseBlock(b)
		} else {
			_, err = ParseTransaction(b)
		}
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", name, err)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 1<<16 {
			t.Errorf("%s: allocated %d bytes for a hostile count", name, d)
		}
	}
}

func TestRejectsMalformedFields(t *testing.T) {
	genesisTx, _ := hex.DecodeString("013c01ff0001ffffffffffff03029b2e4c0281c0b02e7c53291a94d1d0cbff8883f8024f5142ee494ffbbd08807121017767aafcde9be00dcfd098715ebcf7f410daebc582fda69d24a28e9d0bc890d1")
	if _, err := ParseTransaction(genesisTx); err != nil {
		t.Fatal(err)
	}
	mutate := func(i int, v byte) []byte {
		b := append([]byte(nil), genesisTx...)
		b[i] = v
		return b
	}
	cases := []struct {
		name string
		blob []byte
		want error
	}{
		{"version 0", mutate(0, 0), ErrBadVersion},
		{"version 3", mutate(0, 3), ErrBadVersion},
		{"input tag", mutate(3, 0x07), ErrUnknownTag},
		{"target tag", mutate(13, 0x09), ErrUnknownTag},
		{"non-canonical unlock", append([]byte{0x01, 0xbc, 0x00}, genesisTx[2:]...), ErrNonCanonicalVarint},
	}
	for _, c := range cases {
		if _, err := ParseTransaction(c.blob); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// A v2 tx whose RingCT type is 7.
	v2 := mutate(0, 2)
	v2 = append(v2, 7)
	if _, err := ParseTransaction(v2); !errors.Is(err, ErrBadRctType) {
		t.Errorf("rct type 7: %v", err)
	}
	// A u8 major version above 255 in a block header.
	blk := append([]byte{0x80, 0x02}, make([]byte, 40)...)
	if _, err := ParseBlock(blk); !errors.Is(err, ErrVarintOverflow) {
		t.Errorf("major version 256: %v", err)
	}
}

func fuzzSeeds(f *testing.F, blocks bool) {
	bs, txs := realBlobs(f)
	src := txs
	if blocks {
		src = bs
	}
	for _, b := range src {
		f.Add(b)
	}
}

// Whatever the input, parsing never panics; anything accepted re-serializes
// to exactly the input and can be hashed and rendered.
func FuzzParseBlock(f *testing.F) {
	fuzzSeeds(f, true)
	f.Fuzz(func(t *testing.T, b []byte) {
		blk, err := ParseBlock(b)
		if err != nil {
			return
		}
		if got := blk.Serialize(); string(got) != string(b) {
			t.Fatalf("accepted block re-serializes differently")
		}
		if !inputsParseInMonerod(&blk.MinerTx) {
			t.Fatalf("accepted a miner transaction with inputs monerod refuses to parse")
		}
		_, _ = blk.ID()
		_ = blk.MonerodJSON()
	})
}

func FuzzParseTransaction(f *testing.F) {
	fuzzSeeds(f, false)
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := ParseTransaction(b)
		if err != nil {
			return
		}
		if got := tx.Serialize(); string(got) != string(b) {
			t.Fatalf("accepted tx re-serializes differently")
		}
		if !inputsParseInMonerod(tx) {
			t.Fatalf("accepted a transaction with inputs monerod refuses to parse")
		}
		_ = tx.Hashes()
		_ = tx.Weight(len(b))
		_ = tx.MonerodJSON()
	})
}

func TestBulletproofClawbackTable(t *testing.T) {
	cases := []struct {
		rounds []int
		plus   bool
		want   uint64
	}{
		{[]int{10}, true, 3430}, // BP+ with 11 outputs (padded 16): docs/test-vectors.md §4, formula docs/chain-format.md §9.1
		{[]int{7}, false, 0},    // 2 outputs: no clawback
		{[]int{8}, false, (368*4 - 32*(9+2*8)) * 4 / 5},
		{[]int{9}, false, (368*8 - 32*(9+2*9)) * 4 / 5},
		{[]int{7, 7}, false, (368*4 - 32*(9+2*8)) * 4 / 5}, // two proofs of 2: padded 4
		{[]int{11}, true, 0},                               // too many rounds
		{[]int{8, 5}, true, 0},                             // one bad proof voids the count
	}
	for _, c := range cases {
		if got := bulletproofClawback(paddedOutputs(c.rounds), c.plus); got != c.want {
			t.Errorf("clawback(%v, plus=%v) = %d, want %d", c.rounds, c.plus, got, c.want)
		}
	}
}
