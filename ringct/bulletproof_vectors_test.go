package ringct

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gonero/gonero/chainexport"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
)

// realTx is one real transaction from the repository's test data.
type realTx struct {
	name string
	tx   *cryptonote.Transaction
}

var (
	realTxsOnce sync.Once
	realTxsAll  []realTx
	realTxsErr  error
)

// realTxs loads every RingCT transaction of the repository's test data that
// carries Bulletproofs or Bulletproofs+ (see docs/tx-verification.md §5.2).
func realTxs(t testing.TB) []realTx {
	t.Helper()
	dir := testutil.Path(t, "testdata")
	realTxsOnce.Do(func() { realTxsAll, realTxsErr = loadRealTxs(dir) })
	if realTxsErr != nil {
		t.Fatal(realTxsErr)
	}
	return realTxsAll
}

func loadRealTxs(dir string) ([]realTx, error) {
	var out []realTx
	seen := make(map[cryptonote.Hash]bool)
	add := func(name, hexBlob string, blob []byte) error {
		if blob == nil {
			var err error
			if blob, err = hex.DecodeString(strings.TrimSpace(hexBlob)); err != nil {
				return errors.New(name + ": " + err.Error())
			}
		}
		tx, err := cryptonote.ParseTransaction(blob)
		if err != nil {
			return errors.New(name + ": " + err.Error())
		}
		if tx.Rct != nil && tx.Rct.Prunable != nil &&
			(len(tx.Rct.Prunable.Bulletproofs) > 0 || len(tx.Rct.Prunable.BulletproofsPlus) > 0) {
			id := tx.ID()
			if seen[id] {
				return nil // the same tx from another source
			}
			seen[id] = true
			out = append(out, realTx{name, tx})
		}
		return nil
	}

	// monero unit tests: one hex blob per line.
	b, err := os.ReadFile(filepath.Join(dir, "vectors", "monero-unit-tests", "bulletproof_txs.txt"))
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if err := add("unit-tests:"+itoa(i+1), line, nil); err != nil {
			return nil, err
		}
	}

	// mainnet/tx/*.bin.
	bins, _ := filepath.Glob(filepath.Join(dir, "mainnet", "tx", "*.bin"))
	for _, f := range bins {
		blob, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := add("mainnet:"+filepath.Base(f)[:16], "", blob); err != nil {
			return nil, err
		}
	}

	// monero-rs vectors.
	var rs struct {
		Txs []struct {
			Hash string `json:"tx_hash"`
			Hex  string `json:"tx_hex"`
		} `json:"txs"`
	}
	if err := readJSONFile(filepath.Join(dir, "mainnet", "tx", "monero-rs-tx-vectors.json"), &rs); err != nil {
		return nil, err
	}
	for _, x := range rs.Txs {
		if err := add("monero-rs:"+x.Hash[:16], x.Hex, nil); err != nil {
			return nil, err
		}
	}

	// monero-oxide transactions.json.
	var ox []struct {
		ID  string `json:"id"`
		Hex string `json:"hex"`
	}
	if err := readJSONFile(filepath.Join(dir, "vectors", "monero-oxide", "transactions.json"), &ox); err != nil {
		return nil, err
	}
	for _, x := range ox {
		if err := add("oxide:"+x.ID[:16], x.Hex, nil); err != nil {
			return nil, err
		}
	}

	var clsag struct {
		Hex string `json:"hex"`
	}
	if err := readJSONFile(filepath.Join(dir, "vectors", "monero-oxide", "clsag_tx.json"), &clsag); err != nil {
		return nil, err
	}
	if err := add("oxide:clsag_tx", clsag.Hex, nil); err != nil {
		return nil, err
	}

	// Mainnet pool capture (BP+).
	var pool struct {
		Response struct {
			Transactions []struct {
				ID   string `json:"id_hash"`
				Blob string `json:"tx_blob"`
			} `json:"transactions"`
		} `json:"response"`
	}
	if err := readJSONFile(filepath.Join(dir, "mainnet", "rpc", "get_transaction_pool_bpplus.json"), &pool); err != nil {
		return nil, err
	}
	for _, x := range pool.Response.Transactions {
		if err := add("pool:"+x.ID[:16], x.Blob, nil); err != nil {
			return nil, err
		}
	}

	// The regtest chain.
	rd, err := chainexport.Open(filepath.Join(dir, "regtest", "blockchain.raw"))
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		for i, tx := range rec.Txs {
			if tx.Rct != nil && tx.Rct.Prunable != nil && len(tx.Rct.Prunable.BulletproofsPlus) > 0 {
				out = append(out, realTx{"regtest:" + itoa(int(rec.Height)) + "/" + itoa(i), tx})
			}
		}
	}
	return out, nil
}

func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for ; i > 0; i /= 10 {
		n--
		b[n] = byte('0' + i%10)
	}
	return string(b[n:])
}

// realBPPlus returns every real BP+ proof with its commitments (one proof
// per tx, covering all of outPk, as expand_transaction_1 assigns V).
func realBPPlus(t testing.TB) (names []string, items []BulletproofPlusItem) {
	for _, r := range realTxs(t) {
		p := r.tx.Rct.Prunable.BulletproofsPlus
		if len(p) == 0 {
			continue
		}
		if len(p) != 1 {
			t.Fatalf("%s: %d BP+ proofs", r.name, len(p))
		}
		names = append(names, r.name)
		items = append(items, BulletproofPlusItem{Proof: &p[0], Commitments: r.tx.Rct.OutPk})
	}
	return names, items
}

// realBP returns every real Bulletproof with its commitments.
func realBP(t testing.TB) (names []string, items []BulletproofItem) {
	for _, r := range realTxs(t) {
		p := r.tx.Rct.Prunable.Bulletproofs
		if len(p) == 0 {
			continue
		}
		if len(p) != 1 {
			t.Fatalf("%s: %d Bulletproofs", r.name, len(p))
		}
		names = append(names, r.name+"/type"+itoa(int(r.tx.Rct.Type)))
		items = append(items, BulletproofItem{Proof: &p[0], Commitments: r.tx.Rct.OutPk})
	}
	return names, items
}
