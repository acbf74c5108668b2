package consensus

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/params"
)

// mainnetBlockBlob reads a real mainnet block of testdata/mainnet:
// block/<id>.bin, or the blob of an rpc/ get_block capture.
func mainnetBlockBlob(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(testutil.Path(t, "testdata", "mainnet", file))
	if err != nil {
		t.Fatal(err)
	}
	if file[:4] != "rpc/" {
		return b
	}
	var capture struct {
		Response struct {
			Result struct {
				Blob string `json:"blob"`
			} `json:"result"`
		} `json:"response"`
	}
	if err := json.Unmarshal(b, &capture); err != nil {
		t.Fatal(err)
	}
	blob, err := hex.DecodeString(capture.Response.Result.Blob)
	if err != nil {
		t.Fatal(err)
	}
	return blob
}

// TestMainnetCryptoNightBlocks: the real pre-RandomX mainnet blocks held in
// testdata/mainnet hash, through BlockPoWHash, to the PoW hashes
// captured from monerod by Cuprate (docs/test-vectors.md: genesis, 202609,
// 1731606), and meet the difficulty monerod reported for them where a
// captured header gives it (123, 912345). Their ids are checked first, so
// the hashing blob is the real one. monerod's own calc_pow is compared on
// all of them in rpc's TestCalcPowCryptoNightMatchesMonerod.
func TestMainnetCryptoNightBlocks(t *testing.T) {
	for _, tc := range []struct {
		file       string
		blob       []byte // instead of file
		id         string
		pow        string // captured PoW hash, if any
		difficulty uint64 // captured difficulty, if any
	}{
		{blob: params.Mainnet.GenesisBlock(), id: "418015bb9ae982a1975da7d79277c2705727a56894ba0fb246adaabb1f4632e3",
			pow: "8a7b1a780e99eec31a9425b7d89c283421b2042a337d5700dfd4a7d6eb7bd774"},
		{file: "rpc/get_block_123.json", id: "ff617b489e91f5db76f6f2cc9b3f03236e09fb191b4238f4a1e64185a6c28019", difficulty: 51263},
		{file: "block/5ecb7e663bbe947c734c8059e7d7d52dc7d6644bb82d81a6ad4057d127ee8eda.bin",
			id:  "5ecb7e663bbe947c734c8059e7d7d52dc7d6644bb82d81a6ad4057d127ee8eda",
			pow: "c960d540000459480560b7816de968c7470083e5874e10040bdd4cc501000000"},
		{file: "block/e22cf75f39ae720e8b71b3d120a5ac03f0db50bba6379e2850975b4859190bc6.bin",
			id: "e22cf75f39ae720e8b71b3d120a5ac03f0db50bba6379e2850975b4859190bc6", difficulty: 815625611},
		{file: "block/f910435a5477ca27be1986c080d5476aeab52d0c07cf3d9c72513213350d25d4.bin",
			id:  "f910435a5477ca27be1986c080d5476aeab52d0c07cf3d9c72513213350d25d4",
			pow: "7c78b5b67a112a66ea69ea51477492057dba9cfeaa2942ee7372c61800000000"},
	} {
		t.Run(tc.id[:8], func(t *testing.T) {
			blob := tc.blob
			if tc.file != "" {
				blob = mainnetBlockBlob(t, tc.file)
			}
			blk, err := cryptonote.ParseBlock(blob)
			if err != nil {
				t.Fatal(err)
			}
			if id, err := blk.ID(); err != nil || id.String() != tc.id {
				t.Fatalf("id %s (%v), want %s", id, err, tc.id)
			}
			gen, ok := blk.MinerTx.Inputs[0].(cryptonote.TxInGen)
			if !ok {
				t.Fatal("miner tx has no gen input")
			}
			if blk.MajorVersion >= RandomXVersion {
				t.Fatalf("major %d is not a CryptoNight block", blk.MajorVersion)
			}
			pow, err := BlockPoWHash(nil, gen.Height, blk.MajorVersion, [32]byte{}, blk.HashingBlob())
			if err != nil {
				t.Fatal(err)
			}
			if tc.pow != "" && hex.EncodeToString(pow[:]) != tc.pow {
				t.Errorf("height %d: PoW %x, want %s", gen.Height, pow, tc.pow)
			}
			if tc.difficulty != 0 {
				d := u128.From64(tc.difficulty)
				if !CheckPoWHash(pow, d) {
					t.Errorf("height %d: PoW %x does not meet difficulty %d", gen.Height, pow, tc.difficulty)
				}
				// The check is not vacuous: ten thousand times the
				// difficulty fails.
				if CheckPoWHash(pow, u128.From64(tc.difficulty*10000)) {
					t.Errorf("height %d: PoW %x meets 10^4 × difficulty", gen.Height, pow)
				}
			}
		})
	}
}

// TestCryptoNightDispatch: each pre-RandomX major version reaches the
// variant monero-tests' files were made with (tests/hash/main.cpp: variant
// 0, 1, 2, 4): majors 1–6 v0, 7 v1, 8–9 v2, 10–11 CryptoNight-R.
func TestCryptoNightDispatch(t *testing.T) {
	for _, tc := range []struct {
		file   string
		majors []uint8
	}{
		{"tests-slow.txt", []uint8{1, 6}},
		{"tests-slow-1.txt", []uint8{7}},
		{"tests-slow-2.txt", []uint8{8, 9}},
		{"tests-slow-4.txt", []uint8{10, 11}},
	} {
		path := "/usr/share/monero/testdata/hash/" + tc.file
		testutil.RequireFile(t, path, "apt-get install monero-tests")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The first line: hash, input hex, and for CryptoNight-R a height.
		var want, in string
		var height uint64
		if _, err := fmt.Sscan(string(b), &want, &in); err != nil {
			t.Fatal(err)
		}
		if tc.file == "tests-slow-4.txt" {
			if _, err := fmt.Sscan(string(b), &want, &in, &height); err != nil {
				t.Fatal(err)
			}
		}
		input, err := hex.DecodeString(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, major := range tc.majors {
			pow, err := BlockPoWHash(nil, height, major, [32]byte{}, input)
			if err != nil || hex.EncodeToString(pow[:]) != want {
				t.Errorf("major %d on %s line 1: %x (%v), want %s", major, tc.file, pow, err, want)
			}
		}
	}
}
