package chaindb

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/portable"
)

// capturedExchange returns the decoded epee request and response of line seq
// of a captured wallet scenario (testdata/regtest/wallet).
func capturedExchange(t *testing.T, scenario string, seq int) (req, resp portable.Section) {
	t.Helper()
	f, err := os.Open(testutil.Path(t, "testdata", "regtest", "wallet", scenario+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Seq      int    `json:"seq"`
			Request  string `json:"request_body_hex"`
			Response string `json:"response_body_hex"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Seq != seq {
			continue
		}
		for _, p := range []struct {
			hex string
			dst *portable.Section
		}{{line.Request, &req}, {line.Response, &resp}} {
			b, err := hex.DecodeString(p.hex)
			if err != nil {
				t.Fatal(err)
			}
			if *p.dst, err = portable.Decode(b); err != nil {
				t.Fatal(err)
			}
		}
		return req, resp
	}
	t.Fatalf("%s has no line %d", scenario, seq)
	return
}

func field(t *testing.T, s portable.Section, name string) portable.Value {
	t.Helper()
	v, ok := s.Get(name)
	if !ok {
		t.Fatalf("no field %q", name)
	}
	return v
}

// TestOutputIndicesMatchMonerod compares every tx's output indexes (miner
// txs first) with the output_indices monerod sent a wallet in /getblocks.bin
// for all 300 regtest blocks.
func TestOutputIndicesMatchMonerod(t *testing.T) {
	c := regtest(t)
	db := openFast(t)
	appendAll(t, db, c.recs)
	_, resp := capturedExchange(t, "1-restore-refresh", 3)
	blocks := field(t, resp, "output_indices").Array
	if len(blocks) != len(c.recs) {
		t.Fatalf("monerod sent indices for %d blocks", len(blocks))
	}
	compared := 0
	err := db.View(func(r *Reader) error {
		for h, b := range blocks {
			txs := field(t, b.Object, "indices").Array
			hashes := []cryptonote.Hash{c.recs[h].Meta.MinerTxHash}
			for _, tx := range c.recs[h].Txs {
				hashes = append(hashes, tx.Hash)
			}
			if len(txs) != len(hashes) {
				t.Fatalf("height %d: monerod lists %d txs, the block has %d", h, len(txs), len(hashes))
			}
			for i, tx := range txs {
				var want []uint64
				for _, v := range field(t, tx.Object, "indices").Array {
					want = append(want, v.Uint)
				}
				got, err := r.TxOutputIndexes(hashes[i])
				if err != nil {
					return err
				}
				if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Fatalf("height %d tx %d: indexes %v, monerod %v", h, i, got, want)
				}
				compared += len(want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d output indexes agree with monerod", compared)
}

// TestOutputsMatchMonerod compares the entries of the outputs a wallet asked
// monerod for (/get_outs.bin while building a transfer on the 300-block
// chain) with the store's: key, commitment (outPk, or zeroCommit(amount) for
// miner outputs) and height.
func TestOutputsMatchMonerod(t *testing.T) {
	c := regtest(t)
	db := openFast(t)
	appendAll(t, db, c.recs)
	compared, miner := 0, 0
	for _, seq := range []int{11, 13} {
		req, resp := capturedExchange(t, "2-transfer", seq)
		asked := field(t, req, "outputs").Array
		outs := field(t, resp, "outs").Array
		if len(asked) != len(outs) || len(asked) == 0 {
			t.Fatalf("line %d: %d outputs asked, %d answered", seq, len(asked), len(outs))
		}
		err := db.View(func(r *Reader) error {
			for i := range asked {
				amount := field(t, asked[i].Object, "amount").Uint
				index := field(t, asked[i].Object, "index").Uint
				o, err := r.Output(amount, index)
				if err != nil {
					return err
				}
				var key, mask cryptonote.Key
				copy(key[:], field(t, outs[i].Object, "key").Bytes)
				copy(mask[:], field(t, outs[i].Object, "mask").Bytes)
				height := field(t, outs[i].Object, "height").Uint
				if o.Key != key || o.Commitment != mask || o.Height != height {
					t.Fatalf("line %d: output (%d, %d): store %s %s %d, monerod %s %s %d",
						seq, amount, index, o.Key, o.Commitment, o.Height, key, mask, height)
				}
				if o.TxHash == c.recs[o.Height].Meta.MinerTxHash {
					miner++
				}
				compared++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if miner == 0 {
		t.Fatal("no miner output among those compared: zeroCommit untested")
	}
	t.Logf("%d outputs agree with monerod (%d of them miner outputs)", compared, miner)
}
