package cryptonote

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex in test data: %v", err)
	}
	return b
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkTxRoundTrip parses blob as a whole transaction, re-serializes it and
// checks the id; it returns the parsed transaction.
func checkTxRoundTrip(t *testing.T, name string, blob []byte, wantID string) *Transaction {
	t.Helper()
	tx, err := ParseTransaction(blob)
	if err != nil {
		t.Fatalf("%s: parse: %v", name, err)
	}
	if got := tx.Serialize(); string(got) != string(blob) {
		t.Fatalf("%s: re-serialization differs (len %d vs %d)", name, len(got), len(blob))
	}
	if got := tx.ID().String(); got != wantID {
		t.Fatalf("%s: id %s, want %s", name, got, wantID)
	}
	return tx
}

func checkBlockRoundTrip(t *testing.T, name string, blob []byte, wantID string) *Block {
	t.Helper()
	blk, err := ParseBlock(blob)
	if err != nil {
		t.Fatalf("%s: parse: %v", name, err)
	}
	if got := blk.Serialize(); string(got) != string(blob) {
		t.Fatalf("%s: re-serialization differs", name)
	}
	id, err := blk.ID()
	if err != nil {
		t.Fatalf("%s: id: %v", name, err)
	}
	if id.String() != wantID {
		t.Fatalf("%s: id %s, want %s", name, id, wantID)
	}
	return blk
}

// Keccak known answers from monero's tests/hash/tests-fast.txt (Debian monero-tests).
func TestKeccakMoneroVectors(t *testing.T) {
	path := "/usr/share/monero/testdata/hash/tests-fast.txt"
	testutil.RequireFile(t, path, "apt-get install monero-tests")
	n := 0
	forEachLine(t, path, func(fields []string) {
		in := fields[1]
		if in == "x" {
			in = ""
		}
		if got := Keccak256(mustHex(t, in)).String(); got != fields[0] {
			t.Errorf("Keccak(%s...) = %s, want %s", in[:min(len(in), 16)], got, fields[0])
		}
		n++
	})
	if n < 10 {
		t.Fatalf("only %d Keccak vectors read", n)
	}
}

// Tree-hash known answers from monero's tests/hash/tests-tree.txt.
func TestTreeHashMoneroVectors(t *testing.T) {
	path := "/usr/share/monero/testdata/hash/tests-tree.txt"
	testutil.RequireFile(t, path, "apt-get install monero-tests")
	n := 0
	forEachLine(t, path, func(fields []string) {
		leaves := mustHex(t, fields[1])
		ids := make([]Hash, len(leaves)/32)
		for i := range ids {
			copy(ids[i][:], leaves[32*i:])
		}
		if got := TreeHash(ids).String(); got != fields[0] {
			t.Errorf("tree hash of %d leaves = %s, want %s", len(ids), got, fields[0])
		}
		n++
	})
	if n != 16 {
		t.Fatalf("read %d tree-hash vectors, want 16", n)
	}
}

func forEachLine(t *testing.T, path string, fn func(fields []string)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) >= 2 {
			fn(fields)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// Every mainnet block file is named by its id (202612 included, via the
// special case).
func TestMainnetBlockFiles(t *testing.T) {
	files, _ := filepath.Glob(testutil.Path(t, "testdata", "mainnet", "block", "*.bin"))
	if len(files) < 6 {
		t.Fatalf("found %d block files", len(files))
	}
	for _, f := range files {
		blob, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(filepath.Base(f), ".bin")
		blk := checkBlockRoundTrip(t, filepath.Base(f), blob, want)
		_ = blk.MonerodJSON()
	}
}

func TestBlock202612NormalRuleAndCollision(t *testing.T) {
	blob, err := os.ReadFile(testutil.Path(t, "testdata", "mainnet", "block", "bbd604d2ba11ba27935e006ed39c9bfdd99b76bf4a50654bc1e1e61217962698.bin"))
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ParseBlock(blob)
	if err != nil {
		t.Fatal(err)
	}
	if got := blk.idFromHashingBlob(blk.HashingBlob()).String(); got != "426d16cff04c71f8b16340b722dc4010a2dd3831c22041431f772547ba6e331a" {
		t.Fatalf("normal-rule id of 202612 = %s", got)
	}
	if got := hex.EncodeToString(blk.HashingBlob()); got != "01009ad29fa0055da0a3d004c352a90cc86b00fab676695d76a4d1de16036c41ba4dd188c4d76f46090040f353c96de74c53f87389b66fa625ed1f8676beeb5d47b4f0193bd16b584933be8204" {
		t.Fatalf("hashing blob of 202612 = %s", got)
	}
	// Changing any byte (here the nonce) leaves the normal rule in force.
	blk.Nonce++
	id, err := blk.ID()
	if err != nil || id == block202612ID {
		t.Fatalf("a modified 202612 must hash normally: %v %v", id, err)
	}
}

func TestMainnetTxFiles(t *testing.T) {
	files, _ := filepath.Glob(testutil.Path(t, "testdata", "mainnet", "tx", "*.bin"))
	if len(files) < 8 {
		t.Fatalf("found %d tx files", len(files))
	}
	for _, f := range files {
		blob, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkTxRoundTrip(t, filepath.Base(f), blob, strings.TrimSuffix(filepath.Base(f), ".bin"))
	}
}

// Weights, blob sizes and ids from docs/test-vectors.md §4 (type 3 rows).
func TestTxWeightsFromVectors(t *testing.T) {
	want := map[string]uint64{
		"84d48dc11ec91950f8b70a85af9db91fe0c8abef71ef5db08304f7344b99ea66": 2743,
		"e2d39395dd1625b2d707b98af789e7eab9d24c2bd2978ec38ef910961a8cdcee": 1911,
		"2180a87f724702d37af087e22476297e818a73579ef7b7da947da963245202a3": 5714,
	}
	for id, w := range want {
		blob, err := os.ReadFile(testutil.Path(t, "testdata", "mainnet", "tx", id+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		tx := checkTxRoundTrip(t, id, blob, id)
		if got := tx.Weight(len(blob)); got != w {
			t.Errorf("%s: weight %d, want %d", id[:8], got, w)
		}
	}
}

func TestMoneroRsTxVectors(t *testing.T) {
	var v struct {
		Txs []struct {
			TestFn   string `json:"test_fn"`
			TxHash   string `json:"tx_hash"`
			Version  uint64 `json:"version"`
			RctType  *int   `json:"rct_type"`
			Inputs   int    `json:"inputs"`
			Outputs  int    `json:"outputs"`
			BlobSize int    `json:"blob_size"`
			TxHex    string `json:"tx_hex"`
		} `json:"txs"`
	}
	readJSON(t, testutil.Path(t, "testdata", "mainnet", "tx", "monero-rs-tx-vectors.json"), &v)
	if len(v.Txs) != 13 {
		t.Fatalf("%d vectors, want 13", len(v.Txs))
	}
	seenTypes := map[int]bool{}
	for _, c := range v.Txs {
		blob := mustHex(t, c.TxHex)
		tx := checkTxRoundTrip(t, c.TestFn, blob, c.TxHash)
		if tx.Version != c.Version || len(tx.Inputs) != c.Inputs || len(tx.Outputs) != c.Outputs || len(blob) != c.BlobSize {
			t.Errorf("%s: shape version %d in %d out %d size %d", c.TestFn, tx.Version, len(tx.Inputs), len(tx.Outputs), len(blob))
		}
		if c.RctType != nil {
			if tx.Rct == nil || int(tx.Rct.Type) != *c.RctType {
				t.Errorf("%s: rct type mismatch", c.TestFn)
			}
			seenTypes[*c.RctType] = true
		}
		_ = tx.MonerodJSON()
	}
	for _, typ := range []int{0, 2, 3, 5, 6} {
		if !seenTypes[typ] {
			t.Errorf("no vector of RingCT type %d exercised", typ)
		}
	}
}

// Twelve BP+ transactions from a monerod get_transaction_pool capture: id,
// blob size, weight (with clawback), fee and monerod's tx_json text.
func TestBPPlusPoolCapture(t *testing.T) {
	var v struct {
		Response struct {
			Transactions []struct {
				IDHash   string `json:"id_hash"`
				TxBlob   string `json:"tx_blob"`
				TxJSON   string `json:"tx_json"`
				Weight   uint64 `json:"weight"`
				BlobSize int    `json:"blob_size"`
				Fee      uint64 `json:"fee"`
			} `json:"transactions"`
		} `json:"response"`
	}
	readJSON(t, testutil.Path(t, "testdata", "mainnet", "rpc", "get_transaction_pool_bpplus.json"), &v)
	if len(v.Response.Transactions) != 12 {
		t.Fatalf("%d pool txs, want 12", len(v.Response.Transactions))
	}
	for _, c := range v.Response.Transactions {
		blob := mustHex(t, c.TxBlob)
		tx := checkTxRoundTrip(t, c.IDHash[:8], blob, c.IDHash)
		if len(blob) != c.BlobSize {
			t.Errorf("%s: blob size %d, want %d", c.IDHash[:8], len(blob), c.BlobSize)
		}
		if got := tx.Weight(len(blob)); got != c.Weight {
			t.Errorf("%s: weight %d, want %d", c.IDHash[:8], got, c.Weight)
		}
		if tx.Rct.TxnFee != c.Fee {
			t.Errorf("%s: fee %d, want %d", c.IDHash[:8], tx.Rct.TxnFee, c.Fee)
		}
		if got := tx.MonerodJSON(); got != c.TxJSON {
			t.Errorf("%s: tx_json differs\n got: %q\nwant: %q", c.IDHash[:8], got[:min(400, len(got))], c.TxJSON[:min(400, len(c.TxJSON))])
		}
	}
}

func TestV1TxWith148Inputs(t *testing.T) {
	var v struct {
		Response struct {
			Txs []struct {
				AsHex  string `json:"as_hex"`
				TxHash string `json:"tx_hash"`
			} `json:"txs"`
		} `json:"response"`
	}
	readJSON(t, testutil.Path(t, "testdata", "mainnet", "rpc", "get_transactions_d6e48158.json"), &v)
	c := v.Response.Txs[0]
	blob := mustHex(t, c.AsHex)
	tx := checkTxRoundTrip(t, "d6e48158", blob, c.TxHash)
	if len(tx.Inputs) != 148 || len(blob) != 16110 || tx.Weight(len(blob)) != 16110 {
		t.Fatalf("shape: %d inputs, %d bytes", len(tx.Inputs), len(blob))
	}
}

type getBlockResult struct {
	Blob        string   `json:"blob"`
	JSON        string   `json:"json"`
	MinerTxHash string   `json:"miner_tx_hash"`
	TxHashes    []string `json:"tx_hashes"`
	BlockHeader struct {
		Hash        string `json:"hash"`
		BlockWeight uint64 `json:"block_weight"`
		NumTxes     int    `json:"num_txes"`
		Reward      uint64 `json:"reward"`
		PrevHash    string `json:"prev_hash"`
		Nonce       uint32 `json:"nonce"`
		Timestamp   uint64 `json:"timestamp"`
		Major       uint8  `json:"major_version"`
		Minor       uint8  `json:"minor_version"`
	} `json:"block_header"`
}

// checkGetBlock checks a block blob against a monerod getblock result: id,
// header fields, miner tx hash, tx hashes, reward and the json text.
func checkGetBlock(t *testing.T, name string, r *getBlockResult) *Block {
	t.Helper()
	blk := checkBlockRoundTrip(t, name, mustHex(t, r.Blob), r.BlockHeader.Hash)
	h := &r.BlockHeader
	if blk.MajorVersion != h.Major || blk.MinorVersion != h.Minor || blk.Nonce != h.Nonce ||
		blk.Timestamp != h.Timestamp || blk.PrevID.String() != h.PrevHash || len(blk.TxHashes) != h.NumTxes {
		t.Errorf("%s: header fields differ from monerod's", name)
	}
	if got := blk.MinerTx.ID().String(); got != r.MinerTxHash {
		t.Errorf("%s: miner tx hash %s, want %s", name, got, r.MinerTxHash)
	}
	if reward, _ := blk.MinerTx.OutputSum(); reward != h.Reward {
		t.Errorf("%s: reward %d, want %d", name, reward, h.Reward)
	}
	for i, th := range r.TxHashes {
		if blk.TxHashes[i].String() != th {
			t.Errorf("%s: tx_hashes[%d] differs", name, i)
		}
	}
	if got := blk.MonerodJSON(); got != r.JSON {
		t.Errorf("%s: json differs\n got: %q\nwant: %q", name, got, r.JSON)
	}
	return blk
}

func TestMainnetGetBlockCaptures(t *testing.T) {
	files := []string{"get_block_123.json", "get_block_2751210.json", "get_block_2751506.json"}
	for _, f := range files {
		var v struct {
			Response struct {
				Result getBlockResult `json:"result"`
			} `json:"response"`
		}
		readJSON(t, testutil.Path(t, "testdata", "mainnet", "rpc", f), &v)
		blk := checkGetBlock(t, f, &v.Response.Result)
		// A coinbase-only block's weight is its miner tx's weight.
		if len(blk.TxHashes) == 0 {
			mb := blk.MinerTx.Serialize()
			if got := blk.MinerTx.Weight(len(mb)); got != v.Response.Result.BlockHeader.BlockWeight {
				t.Errorf("%s: weight %d, want %d", f, got, v.Response.Result.BlockHeader.BlockWeight)
			}
		}
	}
	var v struct {
		Result getBlockResult `json:"result"`
	}
	readJSON(t, testutil.Path(t, "testdata", "mainnet", "regtest", "get_block_height1_v14_monero-rs.json"), &v)
	checkGetBlock(t, "regtest-v14-height1", &v.Result)
}
